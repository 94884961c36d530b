import { createHash } from "node:crypto"
import { beforeAll, describe, expect, it } from "vitest"
import { checkoutUrl, forEachDatabase, useTestServer, type TestPartner, unique } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

const usd = (value = "1250") => ({ unit: "iso4217/USD", value })

/** Expects the contract's error response. */
forEachDatabase("Partner API: payments", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request("POST", path, { apiKey: partner.sandbox, body, headers })
  const get = (path: string) => server.request("GET", path, { apiKey: partner.sandbox })

  describe("POST /v1/payments", () => {
    it("creates a payment: 201 with the payment record, gatewayUrl and pollInMs", async () => {
      const referenceId = unique("order")
      const response = await post("/v1/payments", { merchantId, amount: usd(), referenceId })
      expect(response.status).toBe(201)
      const body = response.body
      expect(body.paymentId).toMatch(/^pay_[0-9A-HJKMNP-TV-Z]{26}$/)
      expect(body).toMatchObject({
        merchantId,
        referenceId,
        status: "requires_action",
        isFinal: false,
        amount: {
          unit: "iso4217/USD",
          value: "1250",
          display: { assetName: "US Dollar", assetSymbol: "USD", decimals: 2, iconUrl: null, networkIconUrl: null, networkName: null }
        },
        checkout: null,
        option: null,
        buyer: null,
        transaction: null,
        settlement: null,
        refund: null,
        cancelledReason: null,
        cancelledAt: null,
        stateVersion: 1,
        gatewayUrl: `${checkoutUrl}/${body.paymentId}`,
        pollInMs: 2000
      })
      expect(body.expiresAt - body.createdAt).toBe(15 * 60)
      expect(body.updatedAt).toBe(body.createdAt)
      expect(response.headers.get("content-type")).toContain("application/json")
      expect(response.headers.get("svc-version")).toBe("2026-02-18")
      expect(response.headers.get("request-id")).toMatch(/^req_/)
    })

    it("keeps the redirect only when both URLs are HTTPS", async () => {
      const both = await post("/v1/payments", {
        merchantId,
        amount: usd(),
        referenceId: unique("order"),
        checkout: { successUrl: "https://shop.test/ok", errorUrl: "https://shop.test/ko" }
      })
      expect(both.status).toBe(201)
      expect(both.body.checkout).toEqual({ successUrl: "https://shop.test/ok", errorUrl: "https://shop.test/ko" })
      const one = await post("/v1/payments", {
        merchantId,
        amount: usd(),
        referenceId: unique("order"),
        checkout: { successUrl: "https://shop.test/ok", errorUrl: "http://shop.test/ko" }
      })
      expect(one.status).toBe(201)
      expect(one.body.checkout).toBeNull()
    })

    it("responds 404 merchant_not_found for an unknown, malformed or deleted merchant", async () => {
      expectError(await post("/v1/payments", { merchantId: "mer_00000000000000000000000000", amount: usd(), referenceId: "r" }), 404, "merchant_not_found")
      expectError(await post("/v1/payments", { merchantId: "nope", amount: usd(), referenceId: "r" }), 404, "merchant_not_found")
      const deleted = await server.merchant(partner.sandbox)
      expect((await server.request("DELETE", `/v1/merchants/${deleted}`, { apiKey: partner.sandbox })).status).toBe(200)
      expectError(await post("/v1/payments", { merchantId: deleted, amount: usd(), referenceId: "r" }), 404, "merchant_not_found")
    })

    it("responds 400 params_validation for well-formed values that break a rule", async () => {
      const cases: Array<unknown> = [
        { merchantId, amount: { unit: "iso4217/ZZZ", value: "100" }, referenceId: "r" },
        { merchantId, amount: { unit: "iso4217/XXX", value: "100" }, referenceId: "r" },
        { merchantId, amount: { unit: "USD", value: "100" }, referenceId: "r" },
        { merchantId, amount: { unit: "caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", value: "100" }, referenceId: "r" },
        { merchantId, amount: usd("0"), referenceId: "r" },
        { merchantId, amount: usd("12.50"), referenceId: "r" },
        { merchantId, amount: usd("-5"), referenceId: "r" },
        { merchantId, amount: usd("1".repeat(19)), referenceId: "r" },
        { merchantId, amount: usd(), referenceId: "" },
        { merchantId, amount: usd(), referenceId: "r".repeat(256) }
      ]
      for (const body of cases) expectError(await post("/v1/payments", body), 400, "params_validation")
    })

    it("checks the body before the merchant (API rules §1 order)", async () => {
      expectError(await post("/v1/payments", { merchantId: "mer_unknown", amount: usd("0"), referenceId: "r" }), 400, "params_validation")
    })

    it("responds 400 invalid_params for malformed JSON, wrong types and missing fields", async () => {
      const raw = await server.request("POST", "/v1/payments", { apiKey: partner.sandbox, rawBody: "{\"merchantId\": " })
      expectError(raw, 400, "invalid_params")
      const cases: Array<unknown> = [
        {},
        [],
        "text",
        { merchantId, amount: usd() },
        { merchantId, amount: { unit: "iso4217/USD", value: 1250 }, referenceId: "r" },
        { merchantId: 42, amount: usd(), referenceId: "r" },
        { merchantId, amount: usd(), referenceId: null },
        { merchantId, amount: usd(), referenceId: "r", checkout: "https://shop.test" }
      ]
      for (const body of cases) expectError(await post("/v1/payments", body), 400, "invalid_params")
      const notJson = await server.request("POST", "/v1/payments", {
        apiKey: partner.sandbox,
        rawBody: "merchantId=x",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expectError(notJson, 400, "invalid_params")
    })

    it("refuses bodies over 64 KiB with invalid_params", async () => {
      const response = await post("/v1/payments", { merchantId, amount: usd(), referenceId: "r", pad: "x".repeat(70 * 1024) })
      expectError(response, 400, "invalid_params")
    })
  })

  describe("GET /v1/payments/{id}", () => {
    it("answers the full record, equal to the created one", async () => {
      const created = await server.payment(partner.sandbox, merchantId)
      const response = await get(`/v1/payments/${created.paymentId}`)
      expect(response.status).toBe(200)
      const { gatewayUrl: _g, x402Url: _x, pollInMs: _p, ...record } = created
      expect(response.body).toEqual(record)
    })

    it("shows the chosen option, buyer, transaction and refund of a succeeded payment", async () => {
      const created = await server.payment(partner.sandbox, merchantId)
      await server.succeed(created.paymentId)
      const before = await get(`/v1/payments/${created.paymentId}`)
      expect(before.body).toMatchObject({
        status: "succeeded",
        isFinal: true,
        option: { account: expect.stringMatching(/^eip155:1:0x/), asset: expect.stringMatching(/^eip155:1\/erc20:/), value: "12500000" },
        buyer: { accountCaip10: expect.stringMatching(/^eip155:1:0x/) },
        transaction: { chainId: "eip155:1", hash: `0x${createHash("sha256").update(created.paymentId).digest("hex")}`, explorerUrl: null },
        refund: null,
        stateVersion: 3
      })
      const refund = await post("/v1/refunds", { paymentId: created.paymentId })
      expect(refund.status).toBe(201)
      const after = await get(`/v1/payments/${created.paymentId}`)
      expect(after.body.refund).toEqual({ refundId: refund.body.refundId, status: "pending", txHash: null })
    })

    it("responds 404 payment_not_found for unknown and malformed ids", async () => {
      expectError(await get("/v1/payments/pay_00000000000000000000000000"), 404, "payment_not_found")
      expectError(await get("/v1/payments/not-a-payment"), 404, "payment_not_found")
      expectError(await get(`/v1/payments/${"pay_".padEnd(68, "x")}`), 404, "payment_not_found")
      expectError(await get(`/v1/payments/${"pay_".padEnd(90, "x")}`), 404, "payment_not_found")
    })
  })

  describe("GET /v1/payments/{id}/status", () => {
    it("answers the gateway status with its polling delay", async () => {
      const waiting = await server.payment(partner.sandbox, merchantId)
      expect((await get(`/v1/payments/${waiting.paymentId}/status`)).body).toEqual({ status: "requires_action", isFinal: false, pollInMs: 2000 })
      await server.process(waiting.paymentId)
      expect((await get(`/v1/payments/${waiting.paymentId}/status`)).body).toEqual({ status: "processing", isFinal: false, pollInMs: 1000 })

      const succeeded = await server.payment(partner.sandbox, merchantId)
      await server.succeed(succeeded.paymentId)
      expect((await get(`/v1/payments/${succeeded.paymentId}/status`)).body).toEqual({ status: "succeeded", isFinal: true, pollInMs: null })

      const cancelled = await server.payment(partner.sandbox, merchantId)
      expect((await post(`/v1/payments/${cancelled.paymentId}/cancel`, undefined)).status).toBe(200)
      expect((await get(`/v1/payments/${cancelled.paymentId}/status`)).body).toEqual({ status: "cancelled", isFinal: true, pollInMs: null })
    })

    it("reports a payment past expiresAt as expired, before any job records it", async () => {
      const payment = await server.payment(partner.sandbox, merchantId)
      await server.expireNow(payment.paymentId)
      expect((await get(`/v1/payments/${payment.paymentId}/status`)).body).toEqual({ status: "expired", isFinal: true, pollInMs: null })
      expect((await get(`/v1/payments/${payment.paymentId}`)).body.status).toBe("expired")
    })

    it("responds 404 payment_not_found for an unknown id", async () => {
      expectError(await get("/v1/payments/pay_00000000000000000000000000/status"), 404, "payment_not_found")
    })
  })

  describe("POST /v1/payments/{id}/cancel", () => {
    it("cancels a waiting payment as cancelled_by_merchant", async () => {
      const payment = await server.payment(partner.sandbox, merchantId)
      const response = await post(`/v1/payments/${payment.paymentId}/cancel`, undefined)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        paymentId: payment.paymentId,
        status: "cancelled",
        cancelledAt: expect.any(Number),
        cancelledReason: "cancelled_by_merchant"
      })
      expect(response.body.cancelledAt).toBeGreaterThanOrEqual(payment.createdAt)
      const record = (await get(`/v1/payments/${payment.paymentId}`)).body
      expect(record).toMatchObject({
        status: "cancelled",
        isFinal: true,
        cancelledReason: "cancelled_by_merchant",
        cancelledAt: response.body.cancelledAt,
        stateVersion: 2
      })
    })

    it("responds 409 invalid_state once the payment no longer waits for the buyer", async () => {
      const cancelled = await server.payment(partner.sandbox, merchantId)
      await post(`/v1/payments/${cancelled.paymentId}/cancel`, undefined)
      expectError(await post(`/v1/payments/${cancelled.paymentId}/cancel`, undefined), 409, "invalid_state")

      const processing = await server.payment(partner.sandbox, merchantId)
      await server.process(processing.paymentId)
      expectError(await post(`/v1/payments/${processing.paymentId}/cancel`, undefined), 409, "invalid_state")

      const succeeded = await server.payment(partner.sandbox, merchantId)
      await server.succeed(succeeded.paymentId)
      expectError(await post(`/v1/payments/${succeeded.paymentId}/cancel`, undefined), 409, "invalid_state")

      const expired = await server.payment(partner.sandbox, merchantId)
      await server.expireNow(expired.paymentId)
      expectError(await post(`/v1/payments/${expired.paymentId}/cancel`, undefined), 409, "invalid_state")
      expect((await get(`/v1/payments/${expired.paymentId}`)).body.cancelledReason).toBeNull()
    })

    it("responds 404 payment_not_found for an unknown id", async () => {
      expectError(await post("/v1/payments/pay_00000000000000000000000000/cancel", undefined), 404, "payment_not_found")
      expectError(await post("/v1/payments/whatever/cancel", undefined), 404, "payment_not_found")
    })
  })

  describe("GET /v1/payments", () => {
    // A partner of its own, so the listing holds exactly what these tests made.
    let lister: TestPartner
    let shopA: string
    let shopB: string
    const made: Array<any> = []
    const list = (query: string) => server.request("GET", `/v1/payments${query}`, { apiKey: lister.sandbox })

    beforeAll(async () => {
      lister = await server.partner()
      shopA = await server.merchant(lister.sandbox)
      shopB = await server.merchant(lister.sandbox)
      for (let i = 0; i < 5; i++) {
        made.push(await server.payment(lister.sandbox, i % 2 === 0 ? shopA : shopB, `ref-${i}`))
        // Distinct creation times (milliseconds), so that creation order is the order they were made in.
        await new Promise((resolve) => setTimeout(resolve, 3))
      }
      await server.succeed(made[1].paymentId)
      await server.request("POST", `/v1/payments/${made[2].paymentId}/cancel`, { apiKey: lister.sandbox })
      await server.request("POST", "/v1/refunds", { apiKey: lister.sandbox, body: { paymentId: made[1].paymentId } })
    })

    const ids = (response: { body: any }) => response.body.data.map((p: any) => p.paymentId)

    it("lists newest first by default, with nextCursor null on the last page", async () => {
      const response = await list("")
      expect(response.status).toBe(200)
      expect(Object.keys(response.body).sort()).toEqual(["data", "nextCursor"])
      expect(ids(response)).toEqual(made.map((p) => p.paymentId).reverse())
      expect(response.body.nextCursor).toBeNull()
    })

    it("lists oldest first with sortDir=asc", async () => {
      expect(ids(await list("?sortDir=asc"))).toEqual(made.map((p) => p.paymentId))
      expect(ids(await list("?sortDir=desc"))).toEqual(made.map((p) => p.paymentId).reverse())
    })

    it("pages with limit and cursor, in both directions", async () => {
      for (const sortDir of ["asc", "desc"]) {
        const seen: Array<string> = []
        let cursor: string | null = null
        let pages = 0
        do {
          const query: string = `?limit=2&sortDir=${sortDir}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
          const page = await list(query)
          expect(page.status).toBe(200)
          expect(page.body.data.length).toBeLessThanOrEqual(2)
          seen.push(...ids(page))
          cursor = page.body.nextCursor
          pages++
        } while (cursor !== null)
        expect(pages).toBe(3)
        const expected = made.map((p) => p.paymentId)
        expect(seen).toEqual(sortDir === "asc" ? expected : expected.reverse())
      }
    })

    it("filters by status (repeatable), merchant and reference", async () => {
      const rows = (await list("?status=succeeded")).body.data
      expect(rows.map((p: any) => p.paymentId)).toEqual([made[1].paymentId])
      expect(rows[0].refund).toMatchObject({ status: "pending" })
      expect(ids(await list("?status=succeeded&status=cancelled")).sort()).toEqual([made[1].paymentId, made[2].paymentId].sort())
      expect(ids(await list("?status=failed"))).toEqual([])
      expect(ids(await list(`?merchantId=${shopA}`))).toEqual([made[4], made[2], made[0]].map((p) => p.paymentId))
      expect(ids(await list(`?merchantId=${shopB}&status=requires_action`))).toEqual([made[3].paymentId])
      expect(ids(await list("?referenceId=ref-3"))).toEqual([made[3].paymentId])
      expect(ids(await list("?merchantId=mer_unknown"))).toEqual([])
    })

    it("filters by creation time (startTs inclusive, endTs exclusive)", async () => {
      const first = made[0].createdAt
      const last = made[4].createdAt
      expect(ids(await list(`?startTs=${first}&endTs=${last + 1}`))).toHaveLength(5)
      expect(ids(await list(`?startTs=${last + 1}`))).toEqual([])
      expect(ids(await list(`?endTs=${first}`))).toEqual([])
    })

    it("responds 400 invalid_params for bad filter values and cursors", async () => {
      for (
        const query of [
          "?limit=0",
          "?limit=101",
          "?limit=abc",
          "?limit=1.5",
          "?limit=1&limit=2",
          "?cursor=not-a-cursor",
          "?cursor=eyJ4IjoxfQ",
          "?status=pending",
          "?status=succeeded&status=bogus",
          "?sortDir=up",
          "?startTs=yesterday",
          "?endTs=-1"
        ]
      ) {
        expectError(await list(query), 400, "invalid_params")
      }
    })
  })
})
