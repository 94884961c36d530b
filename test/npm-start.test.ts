/**
 * `npm start` as a newcomer meets it, with the real command:
 * - port 3000 taken on the first start: one line saying so, no stack trace, nothing created (the
 *   next start on a free port is still the first one and prints the credentials);
 * - a second `npm start` on the same embedded database: one line with the running one's address;
 * - every restart prints the sandbox's partner, merchant and app ids with ready-to-paste commands,
 *   never its secret key again;
 * - the local chain answers on the same port after a restart and still has the payment's
 *   transaction, the token at the same address;
 * - amounts in major units, a currency no token is priced in, and a plain-HTTP return URL each
 *   say what is wrong.
 */
import { mkdtemp, rm, stat } from "node:fs/promises"
import { connect, createServer, type Server } from "node:net"
import { networkInterfaces, tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./support/ServiceProcess.ts"
import { npm, type NpmStartProcess, spawnNpmStart, waitForBanner } from "./support/NpmStart.ts"
import { widerThanOwner } from "./support/FileModes.ts"

const start = (env: Record<string, string>) => spawnNpmStart(env)
const listening = (s: NpmStartProcess) => waitForBanner(s)
const stop = (s: NpmStartProcess) => s.stop()

/** This machine's addresses other than loopback. */
const externalAddresses = () =>
  Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).filter((entry) => !entry.internal && entry.family === "IPv4").map((entry) => entry.address))

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port })
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })


/** The lines a person reads: not the JSON log lines. */
const humanLines = (output: string) => output.split("\n").filter((line) => !line.startsWith("{") && !line.startsWith(" ") && line.trim() !== "")

const occupy = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve(server))
  })

describe("npm start, as a newcomer meets it", () => {
  let dir: string
  let env: Record<string, string>
  let port: number

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "paygate-start-"))
    port = await freePort()
    env = { PAYGATE_DATA_DIR: join(dir, "pglite"), PORT: String(port), LOCAL_CHAIN_PORT: String(await freePort()) }
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("port taken on the first start: one clear line, nothing created; the next start is still the first", async () => {
    const server = await occupy(port)
    try {
      const busy = start(env)
      expect(await busy.exited).toBe(1)
      const lines = humanLines(busy.output()).filter((line) => line.startsWith("paygate:"))
      expect(lines).toEqual([`paygate: port ${port} is in use (is paygate already running?): stop what uses it, or start on another port with PORT=<port> npm start.`])
      expect(busy.output()).not.toMatch(/\n\s+at /) // no stack trace
      expect(busy.output()).not.toContain("sk_test_")
    } finally {
      server.close()
    }
  }, 120_000)

  it("PORT not set and 3000 taken: the quick start still works, on the next free port, and says so", async () => {
    const taken = await occupy(3000).catch(() => undefined) // already taken by something else: the same case
    const quick = start({ PAYGATE_DATA_DIR: join(dir, "quick", "pglite"), PORT: "" })
    try {
      await listening(quick)
      const output = quick.output()
      const moved = /paygate: port 3000 is in use, so the API listens on (\d+) \(set PORT to choose\)\./.exec(output)
      expect(moved, output).not.toBeNull()
      const url = `http://localhost:${moved![1]}`
      expect(output).toContain(`paygate is listening on ${url}`)
      expect(output).toContain(`Dashboard: ${url}/dashboard`)
      const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)![1]!
      const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(output)![1]!
      expect(output).toContain(`curl -s ${url}/v1/merchant/payment`)
      const created = await fetch(`${url}/v1/merchant/payment`, {
        method: "POST",
        headers: { "api-key": apiKey, "merchant-id": merchantId, "content-type": "application/json" },
        body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "order-1" })
      }).then((r) => r.json() as Promise<{ gatewayUrl: string }>)
      expect(created.gatewayUrl.startsWith(`${url}/checkout/pay_`)).toBe(true)
    } finally {
      await stop(quick)
      taken?.close()
    }
  }, 120_000)

  it("first start, a second start on the same database, a restart: ids every time, the key once, the chain kept", async () => {
    const first = start(env)
    await listening(first)
    const banner = first.output()
    expect(banner).toContain("First start: created sandbox credentials")
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(banner)![1]!
    const partnerId = /partner\s+(ptn_\S+)/.exec(banner)![1]!
    const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(banner)![1]!
    const appId = /App-Id\s+(app_\S+)/.exec(banner)![1]!
    const chain = /Local chain (\S+) at (\S+):/.exec(banner)!
    expect(chain[2]).toBe(`http://127.0.0.1:${env.LOCAL_CHAIN_PORT}`)
    const token = /Accepting (\S+) \(TUSDC\)/.exec(banner)![1]

    // A second start on the same embedded database while the first runs: the running one's address.
    const second = start({ ...env, PORT: String(await freePort()), LOCAL_CHAIN_PORT: "0" })
    expect(await second.exited).toBe(0)
    const refusal = humanLines(second.output()).filter((line) => line.startsWith("paygate"))
    expect(refusal).toHaveLength(1)
    expect(refusal[0]).toMatch(new RegExp(`^paygate is already running at http://localhost:${port} \\(process \\d+\\)\\.$`))
    expect(second.output()).not.toMatch(/\n\s+at /)

    // Creating payments as the README shows, and the three mistakes a newcomer makes.
    const url = `http://127.0.0.1:${port}`

    // The local set-up listens on loopback only, and keeps its files to its owner.
    for (const address of externalAddresses()) expect(await reachable(address, port), address).toBe(false)
    expect(await reachable("127.0.0.1", port)).toBe(true)
    expect(await widerThanOwner(env.PAYGATE_DATA_DIR!)).toEqual([])
    // The option id secret is written at start (the webhook key with the first webhook secret).
    expect((await stat(`${env.PAYGATE_DATA_DIR}.option-id-secret`)).mode & 0o777).toBe(0o600)
    const create = (body: unknown) =>
      fetch(`${url}/v1/merchant/payment`, {
        method: "POST",
        headers: { "api-key": apiKey, "merchant-id": merchantId, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    const major = await create({ amount: { unit: "iso4217/USD", value: "10.50" }, referenceId: "major-units" })
    expect(major.status).toBe(400)
    expect(await major.json()).toEqual({
      code: "params_validation",
      message: `amount.value is an integer in USD minor units (1/100 of a USD), not a decimal: 10.50 USD is "1050".`
    })
    // EUR is payable out of the box (the euro test token, as the banner says); a currency no token is priced in is refused.
    expect(banner).toContain("A EUR payment is payable too, in TEURC at 1:1")
    const euros = await create({ amount: { unit: "iso4217/EUR", value: "1050" }, referenceId: "euros" })
    expect(euros.status).toBe(200)
    const yen = await create({ amount: { unit: "iso4217/JPY", value: "1050" }, referenceId: "yen" })
    expect(yen.status).toBe(400)
    expect(await yen.json()).toEqual({
      code: "params_validation",
      message: "No token this service accepts can be priced in JPY, so a buyer could not pay it; create payments in EUR, USD."
    })
    const plainHttp = await create({
      amount: { unit: "iso4217/USD", value: "1050" },
      referenceId: "plain-http",
      checkout: { successUrl: "http://shop.example/thanks", errorUrl: "https://shop.example/sorry" }
    })
    expect(plainHttp.status).toBe(200)
    expect(plainHttp.headers.get("paygate-warning")).toBe(
      "Redirect disabled for this payment: checkout.successUrl is not an HTTPS or local URL; the checkout shows its own result pages (both URLs must be HTTPS, or http://localhost or http://127.0.0.1 in the sandbox, to redirect)."
    )
    // A developer's own shop on this machine: a sandbox payment returns there over plain HTTP.
    const local = await create({
      amount: { unit: "iso4217/USD", value: "1050" },
      referenceId: "local-shop",
      checkout: { successUrl: "http://localhost:5173/thanks", errorUrl: "http://127.0.0.1:5173/sorry" }
    })
    expect(local.status).toBe(200)
    expect(local.headers.get("paygate-warning")).toBeNull()
    const https = await create({
      amount: { unit: "iso4217/USD", value: "1050" },
      referenceId: "https",
      checkout: { successUrl: "https://shop.example/thanks", errorUrl: "https://shop.example/sorry" }
    })
    expect(https.status).toBe(200)
    expect(https.headers.get("paygate-warning")).toBeNull()

    // Pay a payment on the local chain (npm run pay signs with anvil #1).
    const created = await fetch(`${url}/v1/merchant/payment`, {
      method: "POST",
      headers: { "api-key": apiKey, "merchant-id": merchantId, "content-type": "application/json" },
      body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "kept-chain" })
    }).then((r) => r.json() as Promise<{ paymentId: string }>)
    const paid = await npm(["run", "pay", "--", created.paymentId, "--app-id", appId, "--url", url], env)
    expect(paid.stdout + paid.stderr).toContain("succeeded")
    const before = await fetch(`${url}/v1/payments/${created.paymentId}`, { headers: { "api-key": apiKey } }).then((r) => r.json() as Promise<any>)
    const txHash: string = JSON.stringify(before).match(/0x[0-9a-f]{64}/)![0]
    await new Promise((resolve) => setTimeout(resolve, 1_500)) // the chain's state is written every second
    await stop(first)

    const restarted = start(env)
    await listening(restarted)
    try {
      const again = restarted.output()
      expect(again).not.toContain("First start")
      expect(again).not.toContain("sk_test_")
      for (const id of [partnerId, merchantId, appId]) expect(again).toContain(id)
      expect(again).toContain(`npm run -s admin -- key create --partner ${partnerId} --sandbox`)
      expect(again).toContain(`npm run pay -- <paymentId> --app-id ${appId}`)
      // The key's placeholder in double quotes, so the shell puts the key in.
      expect(again).toContain(`-H "Api-Key: $API_KEY"`)
      expect(again).toContain(`Local chain ${chain[1]} at ${chain[2]}:`)
      expect(again).toContain(`Accepting ${token} (TUSDC)`)
      const receipt = await fetch(chain[2]!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [txHash] })
      }).then((r) => r.json() as Promise<{ result: { status: string } | null }>)
      expect(receipt.result?.status).toBe("0x1")
      const after = await fetch(`${url}/v1/payments/${created.paymentId}`, { headers: { "api-key": apiKey } }).then((r) => r.json() as Promise<any>)
      expect(after.status).toBe("succeeded")
    } finally {
      await stop(restarted)
    }

    // The sandbox's wallet app revoked: the next start offers no command with an App-Id that no longer works.
    const revoked = await npm(["run", "-s", "admin", "--", "app", "revoke", "--app", appId], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    const withoutApp = start(env)
    await listening(withoutApp)
    try {
      expect(withoutApp.output()).toContain("Using the existing database.")
      expect(withoutApp.output()).not.toContain(appId)
    } finally {
      await stop(withoutApp)
    }
  }, 240_000)
})
