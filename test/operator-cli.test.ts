import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// End to end, as an operator sees it: `npm start` on a fresh embedded database, then the admin CLI
// against it while it runs; stdout carries only the JSON, and the keys it prints work at once.

const run = promisify(execFile)
const root = new URL("..", import.meta.url).pathname

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const admin = (env: Record<string, string>, ...args: Array<string>) =>
  run("npm", ["run", "admin", "--", ...args], { cwd: root, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr })
  )

describe("npm start and the operator CLI", () => {
  let dataDir: string
  let service: ChildProcess
  let output = ""
  let baseUrl: string
  let env: Record<string, string>

  beforeAll(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), "paygate-cli-")), "pglite")
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    env = { PAYGATE_DATA_DIR: dataDir }
    // Its own process group, so the whole tree (npm and the node it starts) can be stopped together.
    service = spawn("npm", ["start"], { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, detached: true })
    service.stdout?.on("data", (chunk) => (output += chunk))
    service.stderr?.on("data", (chunk) => (output += chunk))
    for (let i = 0; i < 120 && !output.includes("paygate is listening"); i++) await new Promise((r) => setTimeout(r, 250))
  }, 60_000)

  afterAll(async () => {
    if (service?.pid !== undefined) process.kill(-service.pid, "SIGTERM")
    for (let i = 0; i < 40 && service.exitCode === null && service.signalCode === null; i++) await new Promise((r) => setTimeout(r, 250))
    await rm(join(dataDir, ".."), { recursive: true, force: true })
  })

  it("prints the first-start sandbox credentials with a curl that works", async () => {
    expect(output).toContain("First start: created sandbox credentials")
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)?.[1]
    const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(output)?.[1]
    expect(apiKey).toBeDefined()
    const response = await fetch(`${baseUrl}/v1/merchant/payment`, {
      method: "POST",
      headers: { "api-key": apiKey!, "merchant-id": merchantId!, "content-type": "application/json" },
      body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "order-1" })
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { status: string }).status).toBe("pending")
    expect(output).not.toMatch(/"level":"(ERROR|FATAL)"/)
  })

  it("a newcomer pays a sandbox payment with anvil's default key: npm run pay (options, sign, confirm, status)", async () => {
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)![1]!
    const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(output)![1]!
    const appId = /App-Id\s+(app_\S+)/.exec(output)![1]!
    const created = await fetch(`${baseUrl}/v1/merchant/payment`, {
      method: "POST",
      headers: { "api-key": apiKey, "merchant-id": merchantId, "content-type": "application/json" },
      body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "order-pay" })
    })
    const { paymentId } = (await created.json()) as { paymentId: string }
    const paid = await run("npm", ["run", "pay", "--", paymentId, "--app-id", appId, "--url", baseUrl], { cwd: root })
    expect(paid.stdout).toContain("3. confirm\n   processing")
    expect(paid.stdout.trim().endsWith("succeeded")).toBe(true)
    const status = await fetch(`${baseUrl}/v1/merchant/payment/${paymentId}/status`, {
      headers: { "api-key": apiKey, "merchant-id": merchantId }
    })
    expect(await status.json()).toEqual({ status: "succeeded", isFinal: true })
  }, 60_000)

  it("creates partners, keys and apps while the service runs, printing only JSON", async () => {
    const partner = await admin(env, "partner", "create", "--name", "Acme", "--sandbox")
    expect(partner.code).toBe(0)
    const created = JSON.parse(partner.stdout)
    expect(Object.keys(created)).toEqual(["partnerId", "apiKey"])
    expect(created.apiKey).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/)
    expect(partner.stdout.trim().split("\n")).toHaveLength(1)

    const listed = await fetch(`${baseUrl}/v1/merchants`, { headers: { "api-key": created.apiKey } })
    expect(listed.status).toBe(200)

    const live = JSON.parse((await admin(env, "key", "create", "--partner", created.partnerId)).stdout)
    expect(live.apiKey).toMatch(/^sk_live_/)
    const revoked = await admin(env, "key", "revoke", "--key", live.keyId)
    expect(JSON.parse(revoked.stdout)).toEqual({ keyId: live.keyId, revoked: true })
    const refused = await fetch(`${baseUrl}/v1/merchants`, { headers: { "api-key": live.apiKey } })
    expect(((await refused.json()) as { code: string }).code).toBe("invalid_api_key")

    const app = JSON.parse((await admin(env, "app", "create", "--name", "Wallet", "--sandbox")).stdout)
    expect(app.appId).toMatch(/^app_/)
    expect(app.walletApiKey).toMatch(/^wk_test_/)
  })

  it("never writes a secret to its logs, whatever the requests carry", async () => {
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)?.[1] ?? ""
    expect(apiKey).not.toBe("")
    const attempts: Array<[string, Record<string, string>]> = [
      ["/v1/payments", { "api-key": apiKey }],
      ["/v1/payments/pay_missing", { "api-key": apiKey }],
      ["/v1/payments", { "api-key": `${apiKey}x` }],
      ["/v1/payments", { "api-key": "sk_test_guessedguessedguessedguessed" }],
      ["/no/such/route", { "api-key": apiKey }]
    ]
    const requestIds: Array<string | null> = []
    for (const [path, headers] of attempts) requestIds.push((await fetch(`${baseUrl}${path}`, { headers })).headers.get("request-id"))
    await new Promise((r) => setTimeout(r, 300))
    const logLines = output.split("\n").filter((line) => line.startsWith("{"))
    // Each request has one access line, structured, carrying the id its response announced.
    const accessLines = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.message?.[0] === "request")
    for (const requestId of requestIds) {
      expect(requestId).toMatch(/^req_[0-9a-f]{20}$/)
      expect(accessLines.filter((entry) => entry.annotations.requestId === requestId)).toHaveLength(1)
    }
    expect(logLines.length).toBeGreaterThan(attempts.length)
    for (const line of logLines) {
      expect(line).not.toMatch(/sk_(test|live)_|wk_(test|live)_/)
      expect(JSON.parse(line).level).toBeDefined()
    }
  })

  // stdout then holds only npm's own JSON report of the exit code (.npmrc json=true), never the CLI's text.
  const npmExitReport = (code: number) => ({ error: { code, summary: "", detail: "" } })

  it("explains mistakes on stderr with a non-zero exit and nothing of its own on stdout", async () => {
    const unknown = await admin(env, "partner", "delete")
    expect(unknown.code).toBe(2)
    expect(JSON.parse(unknown.stdout)).toEqual(npmExitReport(2))
    expect(unknown.stderr).toContain("Usage: npm run admin")
    const missing = await admin(env, "key", "create", "--partner", "ptn_nobody")
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toEqual(npmExitReport(1))
    expect(missing.stderr).toContain("ptn_nobody")
  })
})
