/**
 * docs/x402.md's resource server and client run as printed against `npm start`: the client buys
 * the server's resource through paygate, then pays a paygate payment at its `x402Url`.
 */
import { execFile, spawn } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPayment, npm, type StartedService, startService } from "../support/NpmStart.ts"
import { freePort, repoRoot, sleep } from "../support/ServiceProcess.ts"

const run = promisify(execFile)

/** The code block that follows `marker` in the page. */
const blockAfter = (page: string, marker: string) => {
  const from = page.indexOf(marker)
  expect(from, marker).toBeGreaterThan(-1)
  const start = page.indexOf("```js\n", from) + "```js\n".length
  return page.slice(start, page.indexOf("```", start))
}

describe("docs/x402.md: the resource server and the client as printed, against npm start", () => {
  let service: StartedService
  let dir: string
  let server: ReturnType<typeof spawn> | undefined

  beforeAll(async () => {
    service = await startService()
    // Inside the repository, so that the scripts import its node_modules as a project's would.
    dir = await mkdtemp(join(repoRoot, "test/x402/.docs-run-"))
    const page = await readFile(join(repoRoot, "docs/x402.md"), "utf8")
    await writeFile(join(dir, "server.mjs"), blockAfter(page, "`server.mjs`:"))
    await writeFile(join(dir, "client.mjs"), blockAfter(page, "`client.mjs`:"))
  }, 180_000)

  afterAll(async () => {
    server?.kill("SIGTERM")
    await service?.stop()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  const client = async (resourceUrl: string) => {
    const { stdout } = await run(process.execPath, ["client.mjs"], { cwd: dir, env: { ...process.env, RESOURCE_URL: resourceUrl }, timeout: 90_000 })
    return stdout
  }

  it("the server is ten lines, the client buys its resource, and pays a payment's x402Url", async () => {
    const serverCode = await readFile(join(dir, "server.mjs"), "utf8")
    expect(serverCode.trim().split("\n").length).toBeLessThanOrEqual(11)
    const port = await freePort()
    let output = ""
    server = spawn(process.execPath, ["server.mjs"], {
      cwd: dir,
      env: { ...process.env, API_KEY: service.apiKey, MERCHANT_ID: service.merchantId, PAYGATE_URL: service.url, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    server.stdout?.on("data", (chunk) => (output += chunk))
    server.stderr?.on("data", (chunk) => (output += chunk))
    const resource = `http://127.0.0.1:${port}/weather`
    const deadline = Date.now() + 60_000
    for (;;) {
      const answer = await fetch(resource).then((r) => r.status, () => 0)
      if (answer === 402) break
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the resource server did not start (${answer}):\n${output}`)
      await sleep(200)
    }

    const bought = await client(resource)
    expect(bought).toMatch(/^200 \{ weather: 'sunny' \} 0x[0-9a-f]{64}\n$/)
    const payments = await service.partner("GET", `/v1/payments?merchantId=${service.merchantId}`)
    expect(payments.json.data.map((p: any) => [p.referenceId, p.status])).toContainEqual([resource, "succeeded"])

    const paymentId = await createPayment(service, "250", "order-x402-docs")
    const created = await service.partner("GET", `/v1/payments/${paymentId}`)
    expect(created.status).toBe(200)
    const paid = await client(`${service.url}/v1/x402/payments/${paymentId}`)
    expect(paid).toMatch(/^200 \{ status: 'succeeded', isFinal: true, pollInMs: null \} 0x[0-9a-f]{64}\n$/)

    // `npm run pay` pays an x402 address too.
    const another = await createPayment(service, "175", "order-x402-pay")
    const ran = await npm(["run", "-s", "pay", "--", `${service.url}/v1/x402/payments/${another}`])
    expect(ran.code, `${ran.stdout}${ran.stderr}`).toBe(0)
    expect(ran.stdout).toContain("402: 1750000 base units of")
    expect(ran.stdout).toMatch(/transaction 0x[0-9a-f]{64}\n {3}succeeded\n$/)
    expect((await service.partner("GET", `/v1/payments/${another}`)).json.status).toBe("succeeded")
  }, 300_000)
})
