import { type PaymentId, Payout, PayoutRepository } from "@paygate/domain"
import { Effect } from "effect"
import { beforeAll, expect, it } from "vitest"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const today = () => new Date().toISOString().slice(0, 10)

forEachDatabase("Partner API: balance and volume", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let other: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    other = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  const balance = (apiKey: string, query = "") => server.request("GET", `/v1/balance${query}`, { apiKey })

  /** Marks the payment's payout of `kind` completed, as the worker does once it is mined (its ledger posting too). */
  const complete = (paymentId: string, kind: "settlement" | "refund") =>
    server.run(Effect.gen(function*() {
      const payouts = yield* PayoutRepository
      for (const p of yield* payouts.listByPayment(paymentId as PaymentId)) {
        if (p.kind !== kind) continue
        const done = new Payout({ ...p, status: "completed", version: p.version + 1, updatedAt: 1, completedAt: 1 })
        if (!(yield* payouts.update(done))) throw new Error(`payout ${paymentId}:${kind} changed meanwhile`)
      }
    }))

  it("adds up every payment of the partner in the key's mode: per currency, per token, per day; other partners and modes are not counted", async () => {
    const paid = []
    for (let i = 0; i < 23; i++) {
      const payment = await server.payment(partner.sandbox, merchantId, `order-${i}`)
      if (i % 4 !== 3) {
        await server.succeed(payment.paymentId)
        paid.push(payment.paymentId)
      }
    }
    // Noise the totals must not include: the same partner's live payments, another partner's sandbox ones.
    const live = await server.payment(partner.live, await server.merchant(partner.live))
    await server.succeed(live.paymentId)
    const elsewhere = await server.payment(other.sandbox, await server.merchant(other.sandbox))
    await server.succeed(elsewhere.paymentId)

    const response = await balance(partner.sandbox)
    expect(response.status).toBe(200)
    const body = response.body
    expect(body.currencies).toEqual([{ amount: expect.objectContaining({ unit: "iso4217/USD", value: String(1250 * paid.length) }), count: paid.length }])
    expect(body.assets).toEqual([{ asset: usdc, value: String(12_500_000 * paid.length), count: paid.length }])
    expect(body.days).toEqual([{ date: today(), created: 23, succeeded: paid.length }])
    // Held funds are the ledger's (test/chain/BalanceFromLedger.test.ts): no transfer reached it here.
    expect(body.held).toEqual([])
    expect(body.settled).toEqual([])
    expect(body.until - body.since).toBe(30 * 86_400)

    expect((await balance(partner.live)).body.currencies).toEqual([{ amount: expect.objectContaining({ value: "1250" }), count: 1 }])
    expect((await balance(other.sandbox)).body.assets).toEqual([{ asset: usdc, value: "12500000", count: 1 }])
  })

  it("counts a refunded payment as a succeeded one in the volume", async () => {
    const freshPartner = await server.partner()
    const merchant = await server.merchant(freshPartner.sandbox)
    const kept = await server.payment(freshPartner.sandbox, merchant)
    const refunded = await server.payment(freshPartner.sandbox, merchant)
    await server.succeed(kept.paymentId)
    await server.succeed(refunded.paymentId)
    expect((await server.request("POST", "/v1/refunds", { apiKey: freshPartner.sandbox, body: { paymentId: refunded.paymentId } })).status).toBe(201)
    await complete(refunded.paymentId, "refund")
    const body = (await balance(freshPartner.sandbox)).body
    expect(body.currencies[0].count).toBe(2)
    expect(body.assets).toEqual([{ asset: usdc, value: "25000000", count: 2 }])
    expect(body.settled).toEqual([])
  })

  it("refuses a days value out of 1 to 366 with invalid_params", async () => {
    for (const days of ["0", "367", "abc", "-1", "1.5", "", "9999"]) {
      const response = await balance(partner.sandbox, `?days=${encodeURIComponent(days)}`)
      expect(response.status, days).toBe(400)
      expect(response.body.code).toBe("invalid_params")
      expect(response.body.message).toBe("days must be a whole number from 1 to 366.")
    }
    const year = await balance(partner.sandbox, "?days=366")
    expect(year.status).toBe(200)
    expect(year.body.until - year.body.since).toBe(366 * 86_400)
    expect((await balance(partner.sandbox, "?days=1")).body.days).toHaveLength(1)
  })

  it("responds 401 without a key", async () => {
    expect((await server.request("GET", "/v1/balance")).status).toBe(401)
  })
})
