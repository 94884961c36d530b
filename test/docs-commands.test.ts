/**
 * The README's five-minute tour, run as written against `npm start`: the values it prints, the
 * listener in a second shell, the `curl` that creates a payment, `npm run pay`, the webhooks the
 * listener forwards, and the dashboard. Every `--help` command of the docs runs too. (Every other
 * command of the docs is checked by readme.test.ts.)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { documentationFiles, shellCommands } from "./support/DocCommands.ts"
import { eventually } from "./support/Eventually.ts"
import { type StartedService, startService } from "./support/NpmStart.ts"
import { repoRoot } from "./support/ServiceProcess.ts"

const tour = shellCommands("README.md")
const tourCommand = (pattern: RegExp) => {
  const found = tour.find((command) => pattern.test(command.text))
  if (found === undefined) throw new Error(`the README's tour has no command matching ${pattern}`)
  return found.text
}

/** Runs `command` in bash as a reader would paste it, with `env` set in the shell. */
const bash = (command: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd: repoRoot, env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

// The value `npm start` printed after `label` on its first start ("  Api-Key       sk_test_…").
const printed = (output: string, label: string) => {
  const value = new RegExp(`^\\s+${label}\\s+(\\S+)`, "m").exec(output)?.[1]
  if (value === undefined) throw new Error(`npm start printed no ${label}:\n${output}`)
  return value
}

describe("the README's tour against npm start", () => {
  let service: StartedService
  let receiver: Server
  let listener: ChildProcess | undefined
  const received: Array<{ type: string }> = []

  beforeAll(async () => {
    service = await startService()
    receiver = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        received.push(JSON.parse(body))
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  }, 180_000)

  afterAll(async () => {
    // The listener runs in its own process group: end npm and the node it started.
    if (listener?.pid !== undefined && listener.exitCode === null) process.kill(-listener.pid, "SIGTERM")
    receiver?.close()
    await service?.stop()
  })

  it("creates a payment, pays it, forwards its webhooks and serves the dashboard, the checkout and /docs, with the printed values", async () => {
    const output = service.output()
    const env = {
      PAYGATE_URL: service.url,
      API_KEY: printed(output, "Api-Key"),
      MERCHANT_ID: printed(output, "Merchant-Id"),
      APP_ID: printed(output, "App-Id")
    }
    // The values the reader exports are exactly these.
    const exported = tourCommand(/^export /).split(/\s+/).slice(1).map((assignment) => assignment.split("=")[0])
    expect(exported.sort()).toEqual(Object.keys(env).sort())

    // 2. The listener, in a second shell, forwarding to this test's receiver instead of port 4242.
    const port = (receiver.address() as { port: number }).port
    const listen = tourCommand(/npm run listen/).replace("http://127.0.0.1:4242/", `http://127.0.0.1:${port}/`)
    listener = spawn("bash", ["-c", listen], { cwd: repoRoot, env: { ...process.env, ...env }, detached: true })
    let listened = ""
    listener.stdout!.on("data", (chunk) => (listened += chunk))
    listener.stderr!.on("data", (chunk) => (listened += chunk))
    await eventually(async () => listened, (text) => text.includes("Ready"), 90_000)

    // 3. Create a payment.
    const created = await bash(tourCommand(/^curl .*\/v1\/merchant\/payment/), env)
    expect(created.code).toBe(0)
    const payment = JSON.parse(created.stdout)
    expect(payment).toMatchObject({ status: "pending", gatewayUrl: expect.stringContaining(payment.paymentId) })

    // 4. Pay it.
    const paid = await bash(tourCommand(/^npm run pay/), { ...env, PAYMENT_ID: payment.paymentId })
    expect(paid.code, paid.stderr).toBe(0)
    expect(paid.stdout).toMatch(/succeeded/)

    // The listener forwarded the events the README names.
    const types = await eventually(
      async () => received.map((event) => event.type),
      (seen) => seen.includes("payment.succeeded"),
      60_000
    )
    expect(types).toEqual(expect.arrayContaining(["payment.created", "payment.processing", "payment.succeeded"]))
    // The listener prints a forward once the receiver's answer is back: after the receiver saw it.
    await eventually(async () => listened, (text) => /payment\.succeeded.*→ 204/.test(text), 30_000)

    // 5. The dashboard and the payment's checkout page, with the scripts and styles each names (the
    // built service reads them from the sources' folders), and /docs.
    for (const page of [`${service.url}/dashboard`, payment.gatewayUrl as string]) {
      const response = await fetch(page)
      expect([page, response.status]).toEqual([page, 200])
      const assets = [...(await response.text()).matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css|svg))"/g)].map((match) => match[1]!)
      expect(assets, page).not.toEqual([])
      for (const asset of assets) expect([asset, (await fetch(`${service.url}${asset}`)).status]).toEqual([asset, 200])
    }
    expect((await fetch(`${service.url}/docs`)).status).toBe(200)
  }, 300_000)

  it.each(documentationFiles.flatMap(shellCommands).filter((command) => / --help$/.test(command.text)).map((c) => [c.file, c.text]))(
    "%s: `%s` prints the usage",
    async (_file, command) => {
      const result = await bash(command, {})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/Usage/)
    },
    60_000
  )
})
