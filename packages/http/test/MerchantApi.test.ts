import { Payment, PaymentRepository } from "@paygate/domain"
import { Effect, Option } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { checkoutUrl, forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

// The Merchant API (`/v1/merchant/…`): what a merchant backend calls to create a checkout payment
// and to verify its status before fulfilling an order.

const order = { amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "order-1" }

forEachDatabase("Merchant API", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let other: TestPartner
  let merchantId: string
  let otherMerchantId: string

  const create = (body: unknown, headers: Record<string, string> = {}, apiKey: string = partner.sandbox) =>
    server.request("POST", "/v1/merchant/payment", { apiKey, body, headers: { "merchant-id": merchantId, ...headers } })
  const status = (paymentId: string, headers: Record<string, string> = {}, apiKey: string = partner.sandbox) =>
    server.request("GET", `/v1/merchant/payment/${paymentId}/status`, { apiKey, headers: { "merchant-id": merchantId, ...headers } })

  beforeAll(async () => {
    partner = await server.partner()
    other = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
    otherMerchantId = await server.merchant(other.sandbox)
  })

  describe("POST /v1/merchant/payment", () => {
    it("creates a pending payment with the portal URL, expiry and polling hint", async () => {
      const before = Math.floor(Date.now() / 1000)
      const response = await create(order)
      expect(response.status).toBe(200)
      const body = response.body
      expect(Object.keys(body)).toEqual(["paymentId", "gatewayUrl", "x402Url", "status", "expiresAt", "isFinal", "pollInMs"])
      expect(body.paymentId).toMatch(/^pay_[0-9A-HJKMNP-TV-Z]{26}$/)
      expect(body.gatewayUrl).toBe(`${checkoutUrl}/${body.paymentId}`)
      expect(body).toMatchObject({ status: "pending", isFinal: false, pollInMs: 2000 })
      expect(body.expiresAt).toBeGreaterThanOrEqual(before + 900)
      expect(body.expiresAt).toBeLessThanOrEqual(before + 902)
      expect(response.headers.get("svc-version")).toBe("2026-02-18")
    })

    it("keeps redirects only when both checkout URLs are valid HTTPS", async () => {
      const record = async (checkout: unknown) => {
        const { paymentId } = (await create({ ...order, checkout })).body
        return (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })).body.checkout
      }
      const both = { successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/err" }
      expect(await record(both)).toEqual(both)
      expect(await record({ successUrl: "https://shop.example/ok" })).toBeNull()
      expect(await record({ ...both, errorUrl: "http://shop.example/err" })).toBeNull()
      expect(await record({ ...both, successUrl: "javascript:alert(1)" })).toBeNull()
    })

    it("responds 401 for a missing or invalid key and 400 for a missing Merchant-Id, in that order", async () => {
      expectError(await server.request("POST", "/v1/merchant/payment", { body: order }), 401, "missing_merchant_api_key")
      expectError(
        await server.request("POST", "/v1/merchant/payment", { body: order, headers: { "merchant-id": merchantId } }),
        401,
        "missing_merchant_api_key"
      )
      expectError(await server.request("POST", "/v1/merchant/payment", { apiKey: partner.sandbox, body: order }), 400, "missing_merchant_id")
      expectError(await create(order, {}, "sk_test_unknownunknownunknownunknown"), 401, "invalid_api_key")
      expectError(await create(order, {}, "sk_test_caf\u00e9caf\u00e9caf\u00e9caf\u00e9"), 400, "header_not_ascii")
    })

    it("responds 404 merchant_not_found for unknown, foreign, other-mode and deleted merchants", async () => {
      expectError(await create(order, { "merchant-id": "mer_unknown" }), 404, "merchant_not_found")
      expectError(await create(order, { "merchant-id": "not a merchant id" }), 404, "merchant_not_found")
      expectError(await create(order, { "merchant-id": otherMerchantId }), 404, "merchant_not_found")
      expectError(await create(order, {}, partner.live), 404, "merchant_not_found")
      const doomed = await server.merchant(partner.sandbox)
      await server.request("DELETE", `/v1/merchants/${doomed}`, { apiKey: partner.sandbox })
      expectError(await create(order, { "merchant-id": doomed }), 404, "merchant_not_found")
    })

    it("responds 400 invalid_params for malformed JSON and wrong types, before the merchant lookup", async () => {
      const bad = (rawBody: string) =>
        server.request("POST", "/v1/merchant/payment", { apiKey: partner.sandbox, rawBody, headers: { "merchant-id": "mer_unknown" } })
      expectError(await bad("{"), 400, "invalid_params")
      expectError(await bad("[]"), 400, "invalid_params")
      expectError(await bad('{"amount":{"unit":"iso4217/USD","value":1050},"referenceId":"r"}'), 400, "invalid_params")
      expectError(await bad('{"amount":{"unit":"iso4217/USD"},"referenceId":"r"}'), 400, "invalid_params")
      expectError(await bad('{"amount":{"unit":"iso4217/USD","value":"1"}}'), 400, "invalid_params")
    })

    it("responds 400 params_validation for well-formed bodies that break a rule", async () => {
      for (const amount of [
        { unit: "iso4217/ABC", value: "100" },
        { unit: "iso4217/usd", value: "100" },
        { unit: "iso4217/XAU", value: "100" },
        { unit: "caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", value: "100" },
        { unit: "iso4217/USD", value: "0" },
        { unit: "iso4217/USD", value: "10.50" },
        { unit: "iso4217/USD", value: "1000000000000000000" }
      ]) {
        expectError(await create({ ...order, amount }), 400, "params_validation")
      }
      expectError(await create({ ...order, referenceId: "" }), 400, "params_validation")
      expectError(await create({ ...order, referenceId: "r".repeat(256) }), 400, "params_validation")
    })

    it("replays the first response for a repeated Idempotency-Key and refuses another body", async () => {
      const first = await create(order, { "idempotency-key": "merchant-order-77" })
      const again = await create(order, { "idempotency-key": "merchant-order-77" })
      expect(again.status).toBe(first.status)
      expect(again.text).toBe(first.text)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expectError(await create({ ...order, referenceId: "other" }, { "idempotency-key": "merchant-order-77" }), 409, "idempotency_conflict")
    })
  })

  describe("GET /v1/merchant/payment/{id}/status", () => {
    it("reports the merchant vocabulary: pending, then failed once cancelled", async () => {
      const { paymentId } = (await create(order)).body
      expect((await status(paymentId)).body).toEqual({ status: "pending", isFinal: false })
      await server.request("POST", `/v1/payments/${paymentId}/cancel`, { apiKey: partner.sandbox })
      expect((await status(paymentId)).body).toEqual({ status: "failed", isFinal: true })
    })

    it("reports processing and succeeded as the chain progresses", async () => {
      const { paymentId } = (await create(order)).body
      await server.process(paymentId)
      expect((await status(paymentId)).body).toEqual({ status: "processing", isFinal: false })
      await server.succeed(paymentId)
      expect((await status(paymentId)).body).toEqual({ status: "succeeded", isFinal: true })
    })

    it("reports expired once the payment's window has closed, even before the worker records it", async () => {
      const { paymentId } = (await create(order)).body
      await server.run(Effect.gen(function*() {
        const repo = yield* PaymentRepository
        const payment = Option.getOrThrow(yield* repo.findById(paymentId))
        const written = yield* repo.update(
          new Payment({ ...payment, expiresAt: 1, stateVersion: payment.stateVersion + 1 }),
          []
        )
        expect(written).toBe(true)
      }))
      expect((await status(paymentId)).body).toEqual({ status: "expired", isFinal: true })
    })

    it("responds with payment_not_found for unknown ids and for another merchant's or partner's payment", async () => {
      expectError(await status("pay_unknown"), 404, "payment_not_found")
      expectError(await status("%E2%82%AC"), 404, "payment_not_found")
      expectError(await status(`pay_${"x".repeat(200)}`), 404, "payment_not_found")
      const second = await server.merchant(partner.sandbox)
      const theirs = (await create(order, { "merchant-id": second })).body.paymentId
      expectError(await status(theirs), 404, "payment_not_found")
      const foreign = (await server.request("POST", "/v1/merchant/payment", {
        apiKey: other.sandbox,
        body: order,
        headers: { "merchant-id": otherMerchantId }
      })).body.paymentId
      expectError(await status(foreign), 404, "payment_not_found")
      expectError(await status(foreign, { "merchant-id": otherMerchantId }), 404, "merchant_not_found")
    })

    it("answers the auth codes of the Merchant API", async () => {
      expectError(await server.request("GET", "/v1/merchant/payment/pay_x/status"), 401, "missing_merchant_api_key")
      expectError(await server.request("GET", "/v1/merchant/payment/pay_x/status", { apiKey: partner.sandbox }), 400, "missing_merchant_id")
      expectError(await status("pay_x", {}, "sk_live_unknownunknownunknownunknown"), 401, "invalid_api_key")
      expectError(await status("pay_x", { "svc-version": "2026-02-17" }), 400, "unknown_api_version")
      expectError(await status("pay_x", { "svc-version": "yesterday" }), 400, "invalid_api_version")
      const staging = server.handler({ environment: "staging" })
      expectError(await staging("GET", "/v1/merchant/payment/pay_x/status", { apiKey: partner.live, headers: { "merchant-id": merchantId } }), 403, "not_sandbox_api_key")
      const limited = server.handler({ rateLimit: { perSecond: 0.001, burst: 1 } })
      await limited("GET", "/v1/merchant/payment/pay_x/status", { apiKey: partner.sandbox, headers: { "merchant-id": merchantId } })
      const refused = await limited("GET", "/v1/merchant/payment/pay_x/status", { apiKey: partner.sandbox, headers: { "merchant-id": merchantId } })
      expectError(refused, 429, "rate_limited")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    })
  })
})
