import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort } from "./support/FreePort.ts"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// End to end, as an operator sees it: `npm start` on a fresh embedded database (migrated, nothing in
// it: still the first start), then the admin CLI against it while it runs; stdout carries only the
// JSON, and the keys it prints work at once.

const run = promisify(execFile)
const root = new URL("..", import.meta.url).pathname


const admin = (env: Record<string, string>, ...args: Array<string>) =>
  run("npm", ["run", "-s", "admin", "--", ...args], { cwd: root, env: { ...process.env, ...env } }).then(
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
    await copyMigratedDatabase(dataDir)
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    env = { PAYGATE_DATA_DIR: dataDir }
    // Its own process group, so the whole tree (npm and the node it starts) can be stopped together.
    // LOG_LEVEL=debug: the local set-up logs each request at debug level, and a test below reads those lines.
    service = spawn("npm", ["start"], { cwd: root, env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: "debug" }, detached: true })
    service.stdout?.on("data", (chunk) => (output += chunk))
    service.stderr?.on("data", (chunk) => (output += chunk))
    // Up to two minutes: a first start on a machine busy with other suites can take more than one.
    for (let i = 0; i < 480 && !output.includes("paygate is listening"); i++) await new Promise((r) => setTimeout(r, 250))
  }, 150_000)

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

    // A sandbox partner's keys are sandbox keys unless told otherwise, and never live ones.
    const spare = JSON.parse((await admin(env, "key", "create", "--partner", created.partnerId)).stdout)
    expect(spare.apiKey).toMatch(/^sk_test_/)
    expect(spare.mode).toBe("sandbox")
    const refusedLive = await admin(env, "key", "create", "--partner", created.partnerId, "--live")
    expect(refusedLive.code).toBe(1)
    expect(refusedLive.stdout).toBe("")
    expect(refusedLive.stderr.trim()).toBe(
      `${created.partnerId} is a sandbox partner (made with --sandbox; all its keys are sandbox keys), so it gets no live key: a sandbox partner can never move real money. For live payments, make a live partner: npm run admin -- partner create --name <name>`
    )
    // A live partner's keys are live unless --sandbox.
    const livePartner = JSON.parse((await admin(env, "partner", "create", "--name", "Acme Live")).stdout)
    expect(livePartner.apiKey).toMatch(/^sk_live_/)
    const live = JSON.parse((await admin(env, "key", "create", "--partner", livePartner.partnerId)).stdout)
    expect(live).toEqual({ keyId: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^sk_live_/), mode: "live" })
    const liveSandbox = JSON.parse((await admin(env, "key", "create", "--partner", livePartner.partnerId, "--sandbox")).stdout)
    expect(liveSandbox.apiKey).toMatch(/^sk_test_/)
    const revoked = await admin(env, "key", "revoke", "--key", live.keyId)
    expect(JSON.parse(revoked.stdout)).toEqual({ keyId: live.keyId, revoked: true })
    const refused = await fetch(`${baseUrl}/v1/merchants`, { headers: { "api-key": live.apiKey } })
    expect(((await refused.json()) as { code: string }).code).toBe("invalid_api_key")

    const app = JSON.parse((await admin(env, "app", "create", "--name", "Wallet", "--sandbox")).stdout)
    expect(app.appId).toMatch(/^app_/)
    expect(app.walletApiKey).toMatch(/^wk_test_/)
  }, 120_000)

  // The one JSON value the admin CLI printed, on a line of its own.
  const adminJson = async (...args: Array<string>) => {
    const result = await admin(env, ...args)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim().split("\n")).toHaveLength(1)
    return JSON.parse(result.stdout)
  }
  const firstStart = (label: string, prefix: string) => new RegExp(`${label}\\s+(${prefix}\\S+)`).exec(output)![1]!
  const createPayment = async (referenceId: string) => {
    const response = await fetch(`${baseUrl}/v1/merchant/payment`, {
      method: "POST",
      headers: { "api-key": firstStart("Api-Key", "sk_test_"), "merchant-id": firstStart("Merchant-Id", "mer_"), "content-type": "application/json" },
      body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId })
    })
    return ((await response.json()) as { paymentId: string }).paymentId
  }

  it("lists partners, merchants, apps and keys as JSON, never a secret or its digest", async () => {
    const partner = await adminJson("partner", "create", "--name", "Listed Co", "--sandbox")
    const live = await adminJson("key", "create", "--partner", partner.partnerId)
    const spare = await adminJson("key", "create", "--partner", partner.partnerId)
    await adminJson("key", "revoke", "--key", spare.keyId)
    const merchant = await fetch(`${baseUrl}/v1/merchants`, {
      method: "POST",
      headers: { "api-key": partner.apiKey, "idempotency-key": "listed-shop", "content-type": "application/json" },
      body: JSON.stringify({ merchantName: "Listed shop" })
    }).then((response) => response.json() as Promise<{ merchantId: string }>)
    const app = await adminJson("app", "create", "--name", "Listed wallet", "--sandbox")

    const partners = await adminJson("partner", "list")
    const listed = partners.find((p: { partnerId: string }) => p.partnerId === partner.partnerId)
    expect(listed).toEqual({ partnerId: partner.partnerId, name: "Listed Co", pinnedVersion: "2026-02-18", createdAt: expect.any(String), activeKeys: { live: 0, sandbox: 2 } })
    expect(Date.parse(listed.createdAt)).toBeGreaterThan(Date.now() - 600_000)
    expect(partners.length).toBeGreaterThanOrEqual(2) // the first start's sandbox partner too

    const merchants = await adminJson("merchant", "list", "--partner", partner.partnerId, "--sandbox")
    expect(merchants).toEqual([
      { merchantId: merchant.merchantId, partnerId: partner.partnerId, mode: "sandbox", name: "Listed shop", deleted: false, createdAt: expect.any(String) }
    ])
    expect(await adminJson("merchant", "list", "--partner", partner.partnerId, "--live")).toEqual([])
    const everyMerchant = await adminJson("merchant", "list")
    expect(everyMerchant.map((m: { merchantId: string }) => m.merchantId)).toContain(firstStart("Merchant-Id", "mer_"))

    const apps = await adminJson("app", "list")
    expect(apps).toContainEqual({ appId: app.appId, name: "Listed wallet", mode: "sandbox", revoked: false, createdAt: expect.any(String), revokedAt: null })

    const keys = await adminJson("key", "list", "--partner", partner.partnerId)
    expect(keys.map((k: Record<string, unknown>) => [k.keyId, k.kind, k.ownerId, k.mode, k.revokedAt === null])).toEqual([
      [expect.stringMatching(/^key_/), "partner", partner.partnerId, "sandbox", true],
      [live.keyId, "partner", partner.partnerId, "sandbox", true],
      [spare.keyId, "partner", partner.partnerId, "sandbox", false]
    ])
    const everyKey = await adminJson("key", "list")
    expect(everyKey).toContainEqual(expect.objectContaining({ kind: "wallet", ownerId: app.appId, mode: "sandbox", revokedAt: null }))

    const printed = JSON.stringify([partners, merchants, everyMerchant, apps, keys, everyKey])
    for (const secret of [partner.apiKey, live.apiKey, spare.apiKey, app.walletApiKey, firstStart("Api-Key", "sk_test_")]) {
      expect(printed).not.toContain(secret.slice(8))
      expect(printed).not.toContain(createHash("sha256").update(secret).digest("hex"))
    }
    expect(printed).not.toMatch(/[0-9a-f]{64}|sk_(test|live)_|wk_(test|live)_|secret|sha256/i)

    const unknown = await admin(env, "key", "list", "--partner", "ptn_nobody")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr.trim()).toMatch(/(^|\n)No partner ptn_nobody\.$/)
  }, 120_000)

  it("pins a partner to a published stable version, which its requests without Svc-Version get", async () => {
    const partner = await adminJson("partner", "create", "--name", "Pinned Co", "--sandbox")
    expect(await adminJson("partner", "version", "--partner", partner.partnerId, "--version", "2026-02-18")).toEqual({
      partnerId: partner.partnerId,
      pinnedVersion: "2026-02-18"
    })
    const listed = (await adminJson("partner", "list")).find((p: { partnerId: string }) => p.partnerId === partner.partnerId)
    expect(listed.pinnedVersion).toBe("2026-02-18")
    const response = await fetch(`${baseUrl}/v1/merchants`, { headers: { "api-key": partner.apiKey } })
    expect(response.status).toBe(200)
    expect(response.headers.get("svc-version")).toBe("2026-02-18")

    const refusals: Array<[string, string]> = [
      ["2026-02-19.preview", "2026-02-19.preview is a preview version, which can't be pinned; stable versions: 2026-02-18."],
      ["2025-01-01", "2025-01-01 is not a published API version; stable versions: 2026-02-18."],
      ["latest", "\"latest\" is not an API version (YYYY-MM-DD); stable versions: 2026-02-18."]
    ]
    for (const [version, message] of refusals) {
      const refused = await admin(env, "partner", "version", "--partner", partner.partnerId, "--version", version)
      expect(refused.code).toBe(1)
      expect(refused.stdout).toBe("")
      expect(refused.stderr.trim().split("\n").at(-1)).toBe(message)
      expect(refused.stderr).not.toMatch(/\bat \S+ \(|Error:/)
    }
    expect((await admin(env, "partner", "version", "--partner", "ptn_nobody", "--version", "2026-02-18")).stderr).toContain("No partner ptn_nobody.")
    const missing = await admin(env, "partner", "version", "--partner", partner.partnerId)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("partner version needs --partner and --version")
  }, 120_000)

  it("revokes a wallet app: its App-Id gets 401 invalid_app_id and its wallet key invalid_api_key", async () => {
    const paymentId = await createPayment("order-revoked-app")
    const gateway = (headers: Record<string, string>) =>
      fetch(`${baseUrl}/v1/gateway/payment/${paymentId}`, { headers }).then(async (response) => ({
        status: response.status,
        code: ((await response.json()) as { code?: string }).code
      }))
    const byAppId = (appId: string) => gateway({ "app-id": appId, "client-id": "buyer-1" })

    // One app used before it is revoked (the service has it cached), one never used.
    const used = await adminJson("app", "create", "--name", "Used wallet", "--sandbox")
    const unused = await adminJson("app", "create", "--name", "Unused wallet", "--sandbox")
    expect(await byAppId(used.appId)).toEqual({ status: 200, code: undefined })
    expect((await gateway({ "api-key": used.walletApiKey })).status).toBe(200)

    expect(await adminJson("app", "revoke", "--app", unused.appId)).toEqual({ appId: unused.appId, revoked: true })
    expect(await byAppId(unused.appId)).toEqual({ status: 401, code: "invalid_app_id" })
    expect(await gateway({ "api-key": unused.walletApiKey })).toEqual({ status: 401, code: "invalid_api_key" })

    // Another process's revocation reaches the service's credential cache within CREDENTIAL_CACHE_SECONDS (10).
    expect(await adminJson("app", "revoke", "--app", used.appId)).toEqual({ appId: used.appId, revoked: true })
    // The App-Id and the wallet key were cached by separate requests, so each entry expires on its own.
    const revokedAt = Date.now()
    const onceRevoked = async (ask: () => ReturnType<typeof gateway>) => {
      let answer = await ask()
      while (answer.status === 200 && Date.now() - revokedAt < 11_000) {
        await new Promise((r) => setTimeout(r, 250))
        answer = await ask()
      }
      return answer
    }
    expect(await onceRevoked(() => byAppId(used.appId))).toEqual({ status: 401, code: "invalid_app_id" })
    expect(await onceRevoked(() => gateway({ "api-key": used.walletApiKey }))).toEqual({ status: 401, code: "invalid_api_key" })

    const listed = (await adminJson("app", "list")).find((a: { appId: string }) => a.appId === used.appId)
    expect(listed).toMatchObject({ revoked: true, revokedAt: expect.any(String) })
    const again = await admin(env, "app", "revoke", "--app", "app_nobody")
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("No app app_nobody.")
  }, 120_000)

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


  it("explains mistakes on stderr with a non-zero exit and nothing of its own on stdout", async () => {
    const unknown = await admin(env, "partner", "delete")
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr).toContain("Usage: npm run admin")
    const missing = await admin(env, "key", "create", "--partner", "ptn_nobody")
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe("")
    expect(missing.stderr).toContain("ptn_nobody")
    const stray = await admin(env, "partner", "list", "--sandbox")
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain("partner list does not take --sandbox.")
    const both = await admin(env, "merchant", "list", "--sandbox", "--live")
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("Give --sandbox or --live, not both.")
    // A database directory that cannot be made (its parent is a file): one line, with the reason.
    const file = join(dataDir, "..", "not-a-directory")
    await writeFile(file, "")
    const unopenable = await admin({ PAYGATE_DATA_DIR: join(file, "pglite") }, "partner", "list")
    expect(unopenable.code).toBe(1)
    expect(unopenable.stdout).toBe("")
    expect(unopenable.stderr.trim().split("\n")).toEqual([
      `admin failed: Could not start the embedded database in ${join(file, "pglite")}. (ENOTDIR: not a directory, mkdir '${join(file, "pglite")}')`
    ])
    const help = await admin(env, "--help")
    expect(help.code).toBe(0)
    for (const command of ["partner list", "partner version", "merchant list", "key list", "app list", "app revoke"]) {
      expect(help.stderr).toContain(`  ${command} `)
    }
  }, 120_000)
})
