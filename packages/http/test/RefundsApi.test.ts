import { PayoutRepository } from "@paygate/domain"
import { beforeAll, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

forEachDatabase("Partner API: refunds", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  const refund = (body: unknown, headers: Record<string, string> = {}) =>
    server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body, headers })

  it("refunds a succeeded payment: 201 with the pending refund", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const response = await refund({ paymentId: payment.paymentId })
    expect(response.status).toBe(201)
    expect(response.body).toEqual({
      refundId: expect.stringMatching(/^ref_[0-9A-HJKMNP-TV-Z]{26}$/),
      paymentId: payment.paymentId,
      amount: { unit: "iso4217/USD", value: "1250" },
      tokenValue: "12500000",
      status: "pending",
      txHash: null,
      createdAt: expect.any(Number)
    })
    expect(response.body.createdAt).toBeGreaterThanOrEqual(payment.createdAt)
    const record = await server.request("GET", `/v1/payments/${payment.paymentId}`, { apiKey: partner.sandbox })
    expect(record.body.refund).toEqual({ refundId: response.body.refundId, status: "pending", txHash: null })
    // A refund is a stage of the succeeded payment, not a status.
    expect(record.body.status).toBe("succeeded")
  })

  it("responds 409 already_refunded to a second request", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const first = await refund({ paymentId: payment.paymentId })
    expect(first.status).toBe(201)
    const second = await refund({ paymentId: payment.paymentId })
    expectError(second, 409, "already_refunded")
    expect(second.body.message).toContain(first.body.refundId)
  })

  it("refunds in parts until the paid amount is used up; one beyond what is left is 409 already_refunded", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const usd = (value: string) => ({ paymentId: payment.paymentId, amount: { unit: "iso4217/USD", value } })
    const first = await refund(usd("500"))
    expect(first.status).toBe(201)
    expect([first.body.amount, first.body.tokenValue]).toEqual([{ unit: "iso4217/USD", value: "500" }, "5000000"])
    const second = await refund(usd("333"))
    expect([second.status, second.body.tokenValue]).toEqual([201, "3330000"])
    const beyond = await refund(usd("418"))
    expectError(beyond, 409, "already_refunded")
    expect(beyond.body.message).toContain("417")
    // The rest, asked for without an amount: exactly the tokens not yet sent.
    const rest = await refund({ paymentId: payment.paymentId })
    expect([rest.status, rest.body.amount.value, rest.body.tokenValue]).toEqual([201, "417", "4170000"])
    expectError(await refund(usd("1")), 409, "already_refunded")
    const record = await server.request("GET", `/v1/payments/${payment.paymentId}`, { apiKey: partner.sandbox })
    expect(record.body.refund.refundId).toBe(rest.body.refundId)
    const legs = await server.run(PayoutRepository.use((r) => r.listByPayment(payment.paymentId)))
    expect(legs.map((p) => [p.leg, p.refundId, p.value])).toEqual([
      [0, first.body.refundId, 5_000_000n],
      [1, second.body.refundId, 3_330_000n],
      [2, rest.body.refundId, 4_170_000n]
    ])
  })

  it("responds 400 params_validation to a malformed amount or one in another currency, refunding nothing", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    for (const value of ["0", "-1", "12.50", "1e3", "", "１２", "9999999999999999999", "\u0000"]) {
      expectError(await refund({ paymentId: payment.paymentId, amount: { unit: "iso4217/USD", value } }), 400, "params_validation")
    }
    const euros = await refund({ paymentId: payment.paymentId, amount: { unit: "iso4217/EUR", value: "100" } })
    expectError(euros, 400, "params_validation")
    expect(euros.body.message).toContain("iso4217/USD")
    expectError(await refund({ paymentId: payment.paymentId, amount: { value: "100" } }), 400, "invalid_params")
    expectError(await refund({ paymentId: payment.paymentId, amount: 100 }), 400, "invalid_params")
    const whole = await refund({ paymentId: payment.paymentId })
    expect(whole.body.amount.value).toBe("1250")
  })

  it("replays the first answer for the same Idempotency-Key instead of refusing it", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const first = await refund({ paymentId: payment.paymentId }, { "idempotency-key": "refund-once" })
    const again = await refund({ paymentId: payment.paymentId }, { "idempotency-key": "refund-once" })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.text).toBe(first.text)
  })

  it("responds 409 payment_not_succeeded for payments in any other status", async () => {
    const waiting = await server.payment(partner.sandbox, merchantId)
    expectError(await refund({ paymentId: waiting.paymentId }), 409, "payment_not_succeeded")

    const processing = await server.payment(partner.sandbox, merchantId)
    await server.process(processing.paymentId)
    expectError(await refund({ paymentId: processing.paymentId }), 409, "payment_not_succeeded")

    const cancelled = await server.payment(partner.sandbox, merchantId)
    await server.request("POST", `/v1/payments/${cancelled.paymentId}/cancel`, { apiKey: partner.sandbox })
    expectError(await refund({ paymentId: cancelled.paymentId }), 409, "payment_not_succeeded")

    const expired = await server.payment(partner.sandbox, merchantId)
    await server.expireNow(expired.paymentId)
    expectError(await refund({ paymentId: expired.paymentId }), 409, "payment_not_succeeded")
  })

  it("responds 404 payment_not_found for unknown and malformed ids", async () => {
    expectError(await refund({ paymentId: "pay_00000000000000000000000000" }), 404, "payment_not_found")
    expectError(await refund({ paymentId: "not-a-payment" }), 404, "payment_not_found")
    expectError(await refund({ paymentId: "" }), 404, "payment_not_found")
  })

  it("responds 400 invalid_params for malformed bodies", async () => {
    expectError(await refund({}), 400, "invalid_params")
    expectError(await refund({ paymentId: 12 }), 400, "invalid_params")
    expectError(await refund(null), 400, "invalid_params")
    expectError(await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, rawBody: "{paymentId}" }), 400, "invalid_params")
  })

  it("requires the partner key", async () => {
    expectError(await server.request("POST", "/v1/refunds", { body: { paymentId: "pay_x" } }), 401, "missing_api_key")
  })
})
