import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPayment, npm, type StartedService, startService } from "./support/NpmStart.ts"

// `npm run pay` as a developer meets it: it could not pay a payment that needs
// buyer data (1000.00 and more), and `--help` or a wrong flag printed a parse stack trace.

describe("npm run pay", () => {
  let service: StartedService
  let dir: string

  beforeAll(async () => {
    service = await startService()
    dir = await mkdtemp(join(tmpdir(), "paygate-pay-"))
  }, 300_000)

  afterAll(async () => {
    await service?.stop()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  const pay = (...args: Array<string>) => npm(["run", "pay", "--", ...args])
  const merchantStatus = async (paymentId: string) => (await service.partner("GET", `/v1/payments/${paymentId}`)).json.status

  it("pays a payment that needs buyer data, given by flags, through collect-data as the page sends it", async () => {
    const paymentId = await createPayment(service, "150000", "order-flags")
    // Without the data: one line saying what to pass, nothing confirmed.
    const refused = await pay(paymentId, "--app-id", service.appId, "--url", service.url)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("This payment needs the buyer's data (fullName, dob, tosConfirmed")
    expect(refused.stderr).toContain("--buyer-data file.json")
    expect(refused.stderr).not.toMatch(/\n\s+at /)
    expect(await merchantStatus(paymentId)).toBe("requires_action")

    const paid = await pay(
      paymentId, "--app-id", service.appId, "--url", service.url,
      "--full-name", "Ada Lovelace", "--dob", "1990-12-10", "--por-country", "GB", "--por-address", "12 St James's Square, London"
    )
    expect(paid.stderr).not.toContain("→")
    expect(paid.code).toBe(0)
    expect(paid.stdout).toContain("2. buyer data for eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
    expect(paid.stdout).toContain("accepted: tosConfirmed, fullName, dob, porCountry, porAddress")
    expect(paid.stdout).toContain("4. confirm\n   processing")
    expect(paid.stdout.trim().endsWith("succeeded")).toBe(true)
    expect(await merchantStatus(paymentId)).toBe("succeeded")
  }, 60_000)

  it("takes the buyer data from a JSON file; the server's validation comes back as one line", async () => {
    const paymentId = await createPayment(service, "250000", "order-file")
    const bad = join(dir, "bad.json")
    await writeFile(bad, JSON.stringify({ fullName: "Grace Hopper", dob: "1906-12-09", pobCountry: "usa", pobAddress: "New York" }))
    const refused = await pay(paymentId, "--app-id", service.appId, "--url", service.url, "--buyer-data", bad)
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split("\n").at(-1)).toMatch(/^POST \/collect-data → 400 params_validation: .*pobCountry/)
    expect(await merchantStatus(paymentId)).toBe("requires_action")

    const good = join(dir, "good.json")
    await writeFile(good, JSON.stringify({ fullName: "Grace Hopper", dob: "1906-12-09", pobCountry: "US", pobAddress: "New York" }))
    const paid = await pay(paymentId, "--app-id", service.appId, "--url", service.url, "--buyer-data", good)
    expect(paid.code).toBe(0)
    expect(paid.stdout).toContain("accepted: tosConfirmed, fullName, dob, pobCountry, pobAddress")
    expect(await merchantStatus(paymentId)).toBe("succeeded")
  }, 60_000)

  it("pays a USDT payment through Permit2 (--asset TUSDT): the approve transaction, then the permit; the next one signs only", async () => {
    const rpc = /Local chain eip155:31337 at (http:\/\/\S+):/.exec(service.output())?.[1]
    expect(rpc).toBeDefined()
    const first = await createPayment(service, "1050", "order-usdt-1")
    const paid = await pay(first, "--app-id", service.appId, "--url", service.url, "--asset", "TUSDT", "--rpc-url", rpc!)
    expect(paid.stderr).not.toContain("→")
    expect(paid.code).toBe(0)
    expect(paid.stdout).toContain("TUSDT")
    expect(paid.stdout).toMatch(/2\. send the transaction to .*\n\s+0x[0-9a-f]{64}\n3\. sign the PermitTransferFrom typed data/)
    expect(await merchantStatus(first)).toBe("succeeded")
    const second = await createPayment(service, "1050", "order-usdt-2")
    const again = await pay(second, "--app-id", service.appId, "--url", service.url, "--asset", "TUSDT", "--rpc-url", rpc!)
    expect(again.code).toBe(0)
    expect(again.stdout).not.toContain("send the transaction")
    expect(await merchantStatus(second)).toBe("succeeded")
  }, 90_000)

  it("--deposit pays through the payment's deposit address with a plain transfer, which the watcher credits", async () => {
    const rpcUrl = /Local chain eip155:31337 at (http:\/\/[\d.]+:\d+)/.exec(service.output())?.[1]
    expect(rpcUrl).toBeDefined()
    const paymentId = await createPayment(service, "1050", "order-deposit")

    // The node must be the option's network: one line, nothing sent.
    const unreachable = await pay(paymentId, "--deposit", "--app-id", service.appId, "--url", service.url, "--rpc-url", "http://127.0.0.1:9")
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain("cannot reach the chain at http://127.0.0.1:9/")
    expect(await merchantStatus(paymentId)).toBe("requires_action")

    const paid = await pay(paymentId, "--deposit", "--app-id", service.appId, "--url", service.url, "--rpc-url", rpcUrl!)
    expect(paid.stderr).not.toContain("→")
    expect(paid.code).toBe(0)
    expect(paid.stdout).toMatch(/1\. deposit address on eip155:31337\n {3}send \d+ base units of TUSDC \(eip155:31337\/erc20:0x[0-9a-fA-F]{40}\) to 0x[0-9a-fA-F]{40}\n/)
    expect(paid.stdout).toMatch(/2\. transfer from 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 through http:\S+\n {3}0x[0-9a-f]{64}\n/)
    expect(paid.stdout.trim().endsWith("succeeded")).toBe(true)
    const payment = (await service.partner("GET", `/v1/payments/${paymentId}`)).json
    expect(payment.status).toBe("succeeded")
  }, 90_000)

  it("prints its usage with --help and one clear line for each bad argument", async () => {
    const help = await pay("--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage: npm run pay -- <paymentId> --app-id <app_…> [options]")
    expect(help.stdout).toContain("--buyer-data FILE")

    const cases: Array<[Array<string>, string]> = [
      [["pay_x", "--app-id", "app_x", "--nope"], "Unknown option '--nope'"],
      [["pay_x", "--app-id"], "Option '--app-id <value>' argument missing"],
      [["--app-id", "app_x"], "Missing the payment id"],
      [["pay_x"], "Missing --app-id"],
      [["order-1", "--app-id", "app_x"], "\"order-1\" is not a payment id"],
      [["pay_x", "--app-id", "app_x", "--key", "0x12"], "--key must be a private key"],
      [["pay_x", "--app-id", "app_x", "--url", "localhost"], "--url \"localhost\" is not a URL"],
      [["pay_x", "--app-id", "app_x", "--deposit", "--rpc-url", "nowhere"], "--rpc-url \"nowhere\" is not a URL"],
      [["pay_x", "--app-id", "app_x", "--deposit", "--full-name", "Ada"], "--deposit sends no buyer data"],
      [["pay_x", "--app-id", "app_x", "--buyer-data", join(dir, "missing.json")], "cannot read"],
      [["pay_x", "--app-id", "app_x", "--url", "http://127.0.0.1:9"], "Cannot reach http://127.0.0.1:9"],
      [["pay_missing", "--app-id", service.appId, "--url", service.url], "POST /options → 404 payment_not_found"]
    ]
    for (const [args, message] of cases) {
      const result = await pay(...args)
      expect(result.code, args.join(" ")).not.toBe(0)
      const lines = result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith(">") && !line.startsWith("npm warn"))
      expect(lines, args.join(" ")).toHaveLength(1)
      expect(lines[0], args.join(" ")).toContain(message)
    }
  }, 300_000)
})
