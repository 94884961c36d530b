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

  it("answers 409 already_refunded to a second request", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const first = await refund({ paymentId: payment.paymentId })
    expect(first.status).toBe(201)
    const second = await refund({ paymentId: payment.paymentId })
    expectError(second, 409, "already_refunded")
    expect(second.body.message).toContain(first.body.refundId)
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

  it("answers 409 payment_not_succeeded for payments in any other status", async () => {
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

  it("answers 404 payment_not_found for unknown and malformed ids", async () => {
    expectError(await refund({ paymentId: "pay_00000000000000000000000000" }), 404, "payment_not_found")
    expectError(await refund({ paymentId: "not-a-payment" }), 404, "payment_not_found")
    expectError(await refund({ paymentId: "" }), 404, "payment_not_found")
  })

  it("answers 400 invalid_params for malformed bodies", async () => {
    expectError(await refund({}), 400, "invalid_params")
    expectError(await refund({ paymentId: 12 }), 400, "invalid_params")
    expectError(await refund(null), 400, "invalid_params")
    expectError(await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, rawBody: "{paymentId}" }), 400, "invalid_params")
  })

  it("requires the partner key", async () => {
    expectError(await server.request("POST", "/v1/refunds", { body: { paymentId: "pay_x" } }), 401, "missing_api_key")
  })
})
