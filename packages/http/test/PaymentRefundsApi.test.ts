/**
 * `GET /v1/payments/{id}/refunds`: a payment's refunds, oldest first, each with its transfers (one
 * per sender of the payment's parts), read with the same reach as the payment itself.
 */
import { IdGenerator, NetworkModes, type PaymentId, Payout, PayoutRepository, Receipt, ReceiptStore, SignedTransfer } from "@paygate/domain"
import { Effect, Option } from "effect"
import { beforeAll, expect, it } from "vitest"
import { expectError } from "../../../test/support/ExpectError.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"

const chainId = "eip155:1"
const usdc = `${chainId}/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48`
const first = `${chainId}:0x${"a1".repeat(20)}`
const second = `${chainId}:0x${"b2".repeat(20)}`

forEachDatabase("Partner API: a payment's refunds", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  const list = (paymentId: string, apiKey = partner.sandbox) =>
    server.request("GET", `/v1/payments/${paymentId}/refunds`, { apiKey })

  /** Records the payment's two parts: `first` paid 3 USDC of it, then `second` the other 9.50. */
  const paidInParts = (paymentId: string) =>
    server.run(Effect.gen(function*() {
      const ids = yield* IdGenerator
      const store = yield* ReceiptStore
      for (const [index, [from, value]] of ([[first, 3_000_000n], [second, 9_500_000n]] as const).entries()) {
        const id = yield* ids.make("receipt")
        const part = new Receipt({
          id: id as Receipt["id"],
          chainId,
          asset: usdc,
          txHash: `0x${id.slice(4).toLowerCase().padEnd(64, "0")}`,
          logIndex: index,
          blockNumber: 10 + index,
          blockHash: `0x${"11".repeat(32)}`,
          blockTime: 1_700_000_000,
          from,
          value,
          reference: null,
          outcome: "paid",
          paymentId: paymentId as PaymentId,
          partnerId: partner.partnerId,
          mode: "sandbox",
          expectedValue: 12_500_000n - (index === 0 ? 0n : 3_000_000n),
          paymentStatus: "requires_action",
          recordedAt: Date.now(),
          refund: null,
          reversedAt: null
        })
        expect(yield* store.record(part, null, [], [], null)).toBe("recorded")
      }
    }).pipe(Effect.provideService(NetworkModes, { modeOf: () => "sandbox" })))

  it("lists a payment refunded twice in part, oldest first, each refund with its transfers", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    expect(await list(payment.paymentId)).toMatchObject({ status: 200, body: { data: [], nextCursor: null } })
    await paidInParts(payment.paymentId)
    const refund = (value: string) =>
      server.request("POST", "/v1/refunds", {
        apiKey: partner.sandbox,
        body: { paymentId: payment.paymentId, amount: { unit: "iso4217/USD", value } }
      })
    const five = await refund("500")
    const four = await refund("400")
    expect([five.status, four.status]).toEqual([201, 201])
    // The first refund's first transfer is signed: its transaction shows before it is final.
    const txHash = `0x${"cd".repeat(32)}`
    await server.run(Effect.gen(function*() {
      const payouts = yield* PayoutRepository
      const leg = Option.getOrThrow(yield* payouts.find({ paymentId: payment.paymentId, kind: "refund", leg: 0 }))
      const signed = new Payout({ ...leg, transfer: new SignedTransfer({ txHash, raw: "0x00" }), version: leg.version + 1 })
      expect(yield* payouts.update(signed)).toBe(true)
    }))

    const response = await list(payment.paymentId)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      data: [
        {
          ...five.body,
          asset: usdc,
          transfers: [
            { recipient: first, value: "3000000", status: "pending", txHash },
            { recipient: second, value: "2000000", status: "pending", txHash: null }
          ]
        },
        {
          ...four.body,
          asset: usdc,
          transfers: [{ recipient: second, value: "4000000", status: "pending", txHash: null }]
        }
      ],
      nextCursor: null
    })
    expect(response.body.data.map((r: any) => [r.amount.value, r.tokenValue])).toEqual([["500", "5000000"], ["400", "4000000"]])
  })

  it("lists a payment with no refund, whatever its status, as an empty list", async () => {
    const waiting = await server.payment(partner.sandbox, merchantId)
    expect(await list(waiting.paymentId)).toMatchObject({ status: 200, body: { data: [], nextCursor: null } })
  })

  it("responds 404 payment_not_found for another partner's payment, the other mode's, and unknown or malformed ids", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    expect((await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId: payment.paymentId } })).status).toBe(201)
    expect((await list(payment.paymentId)).body.data).toHaveLength(1)
    const other = await server.partner()
    expectError(await list(payment.paymentId, other.sandbox), 404, "payment_not_found")
    expectError(await list(payment.paymentId, partner.live), 404, "payment_not_found")
    for (const id of ["pay_00000000000000000000000000", "not-a-payment", "pay_%00", "%FF", "%C3%28", `pay_${"x".repeat(4097)}`, "pay_'--"]) {
      expectError(await list(id), 404, "payment_not_found")
    }
  })

  it("requires the partner key", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    expectError(await server.request("GET", `/v1/payments/${payment.paymentId}/refunds`), 401, "missing_api_key")
  })
})
