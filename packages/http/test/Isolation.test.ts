import { beforeAll, describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const wallet = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

/**
 * Another partner's (or the other mode's) data is reported exactly as missing data (API rules §1,
 * §2): every read and write answers the not-found code, and nothing changes.
 */
forEachDatabase("Partner API: isolation between partners and modes", (database) => {
  const server = useTestServer(database)
  let a: TestPartner
  let b: TestPartner
  let merchant: string
  let waiting: string
  let succeeded: string
  let settlementId: string

  beforeAll(async () => {
    a = await server.partner()
    b = await server.partner()
    merchant = await server.merchant(a.sandbox, "Shared Name")
    waiting = (await server.payment(a.sandbox, merchant, "iso-1")).paymentId
    succeeded = (await server.payment(a.sandbox, merchant, "iso-2")).paymentId
    await server.succeed(succeeded)
    const registered = await server.request("POST", `/v1/merchants/${merchant}/settlements/crypto`, {
      apiKey: a.sandbox,
      body: { settlements: [{ asset: usdc, destination: wallet }] }
    })
    settlementId = registered.body.crypto[0].id
  })

  /** Every operation on A's sandbox data, answered for `apiKey`. */
  const probes = (apiKey: string) => {
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      server.request(method, path, { apiKey, body, headers })
    return {
      payment: () => call("GET", `/v1/payments/${waiting}`),
      status: () => call("GET", `/v1/payments/${waiting}/status`),
      cancel: () => call("POST", `/v1/payments/${waiting}/cancel`),
      refund: () => call("POST", "/v1/refunds", { paymentId: succeeded }),
      createPayment: () => call("POST", "/v1/payments", { merchantId: merchant, amount: { unit: "iso4217/USD", value: "100" }, referenceId: "x" }),
      merchant: () => call("GET", `/v1/merchants/${merchant}`),
      update: () => call("PATCH", `/v1/merchants/${merchant}`, { merchantName: "Stolen" }),
      remove: () => call("DELETE", `/v1/merchants/${merchant}`),
      settlements: () => call("GET", `/v1/merchants/${merchant}/settlements`),
      register: () => call("POST", `/v1/merchants/${merchant}/settlements/crypto`, { settlements: [{ asset: usdc, destination: wallet }] }),
      change: () => call("PUT", `/v1/merchants/${merchant}/settlements/crypto/${settlementId}`, { destination: wallet }),
      removeSettlement: () => call("DELETE", `/v1/merchants/${merchant}/settlements/crypto/${settlementId}`),
      merchantPayments: () => call("GET", "/v1/merchants/payments", undefined, { "merchant-id": merchant }),
      merchantPaymentsByPath: () => call("GET", `/v1/merchants/${merchant}/payments`),
      list: () => call("GET", "/v1/payments"),
      listByMerchant: () => call("GET", `/v1/payments?merchantId=${merchant}`),
      merchants: () => call("GET", "/v1/merchants"),
      searchMerchant: () => call("GET", `/v1/merchants?search=${merchant}`)
    }
  }

  const expectHidden = async (apiKey: string) => {
    const p = probes(apiKey)
    expectError(await p.payment(), 404, "payment_not_found")
    expectError(await p.status(), 404, "payment_not_found")
    expectError(await p.cancel(), 404, "payment_not_found")
    expectError(await p.refund(), 404, "payment_not_found")
    expectError(await p.createPayment(), 404, "merchant_not_found")
    expectError(await p.merchant(), 404, "merchant_not_found")
    expectError(await p.update(), 404, "merchant_not_found")
    expectError(await p.remove(), 404, "merchant_not_found")
    expectError(await p.settlements(), 404, "merchant_not_found")
    expectError(await p.register(), 404, "merchant_not_found")
    expectError(await p.change(), 404, "merchant_not_found")
    expectError(await p.removeSettlement(), 404, "merchant_not_found")
    expectError(await p.merchantPayments(), 404, "merchant_not_found")
    expectError(await p.merchantPaymentsByPath(), 404, "merchant_not_found")
    const ids = (response: { body: any }) => response.body.data.map((x: any) => x.paymentId ?? x.merchantId)
    expect(ids(await p.list())).not.toContain(waiting)
    expect(ids(await p.listByMerchant())).toEqual([])
    expect(ids(await p.merchants())).not.toContain(merchant)
    expect(ids(await p.searchMerchant())).toEqual([])
  }

  /** A's data, unchanged by the probes. */
  const expectUntouched = async () => {
    const owner = probes(a.sandbox)
    const payment = await owner.payment()
    expect(payment.body).toMatchObject({ status: "requires_action", stateVersion: 1 })
    const profile = await owner.merchant()
    expect(profile.body).toMatchObject({ merchantName: "Shared Name", status: "active" })
    expect(profile.body.settlements.crypto).toEqual([expect.objectContaining({ id: settlementId, destination: wallet })])
    const refunded = await server.request("GET", `/v1/payments/${succeeded}`, { apiKey: a.sandbox })
    expect(refunded.body.refund).toBeNull()
  }

  describe("another partner", () => {
    it("sees none of the partner's payments, merchants, settlements or refunds, and changes nothing", async () => {
      await expectHidden(b.sandbox)
      await expectHidden(b.live)
      await expectUntouched()
    })

    it("may use the same merchant name and idempotency keys independently", async () => {
      const same = await server.request("POST", "/v1/merchants", {
        apiKey: b.sandbox,
        body: { merchantName: "Shared Name" },
        headers: { "idempotency-key": "shared-key" }
      })
      expect(same.status).toBe(201)
      expect(same.body.merchantId).not.toBe(merchant)
    })
  })

  describe("the other mode of the same partner", () => {
    it("a live key never sees sandbox data", async () => {
      await expectHidden(a.live)
      await expectUntouched()
    })

    it("a sandbox key never sees live data", async () => {
      const liveMerchant = await server.merchant(a.live, "Shared Name")
      const livePayment = (await server.payment(a.live, liveMerchant)).paymentId
      await server.succeed(livePayment)
      const sandbox = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        server.request(method, path, { apiKey: a.sandbox, body, headers })
      expectError(await sandbox("GET", `/v1/payments/${livePayment}`), 404, "payment_not_found")
      expectError(await sandbox("POST", "/v1/refunds", { paymentId: livePayment }), 404, "payment_not_found")
      expectError(await sandbox("POST", `/v1/payments/${livePayment}/cancel`), 404, "payment_not_found")
      expectError(await sandbox("GET", `/v1/merchants/${liveMerchant}`), 404, "merchant_not_found")
      expectError(await sandbox("GET", "/v1/merchants/payments", undefined, { "merchant-id": liveMerchant }), 404, "merchant_not_found")
      const listed = await sandbox("GET", "/v1/payments")
      expect(listed.body.data.map((p: any) => p.paymentId)).not.toContain(livePayment)
      const merchants = await sandbox("GET", "/v1/merchants")
      expect(merchants.body.data.map((m: any) => m.merchantId)).toEqual([merchant])
      // The live key sees its own data.
      const live = await server.request("GET", "/v1/payments", { apiKey: a.live })
      expect(live.body.data.map((p: any) => p.paymentId)).toEqual([livePayment])
      expect((await server.request("POST", "/v1/refunds", { apiKey: a.live, body: { paymentId: livePayment } })).status).toBe(201)
    })
  })

  it("the owner still can do everything afterwards", async () => {
    const owner = (method: string, path: string, body?: unknown) => server.request(method, path, { apiKey: a.sandbox, body })
    expect((await owner("POST", "/v1/refunds", { paymentId: succeeded })).status).toBe(201)
    expect((await owner("POST", `/v1/payments/${waiting}/cancel`)).status).toBe(200)
    expect((await owner("PUT", `/v1/merchants/${merchant}/settlements/crypto/${settlementId}`, { destination: wallet })).status).toBe(200)
    expect((await owner("DELETE", `/v1/merchants/${merchant}`)).status).toBe(200)
  })
})
