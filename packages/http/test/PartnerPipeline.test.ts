import { CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner, unique } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

/** One request per partner operation, as [method, path, body]. */
const operations = (merchantId: string, paymentId: string): ReadonlyArray<readonly [string, string, unknown?]> => [
  ["POST", "/v1/payments", { merchantId, amount: { unit: "iso4217/USD", value: "100" }, referenceId: "r" }],
  ["GET", "/v1/payments"],
  ["GET", `/v1/payments/${paymentId}`],
  ["POST", `/v1/payments/${paymentId}/cancel`],
  ["GET", `/v1/payments/${paymentId}/status`],
  ["POST", "/v1/refunds", { paymentId }],
  ["POST", "/v1/merchants", { merchantName: "Shop" }],
  ["GET", "/v1/merchants"],
  ["GET", "/v1/merchants/payments"],
  ["GET", `/v1/merchants/${merchantId}`],
  ["PATCH", `/v1/merchants/${merchantId}`, { merchantName: "Shop" }],
  ["DELETE", `/v1/merchants/${merchantId}`],
  ["GET", `/v1/merchants/${merchantId}/payments`],
  ["GET", `/v1/merchants/${merchantId}/settlements`],
  ["POST", `/v1/merchants/${merchantId}/settlements/crypto`, { settlements: [] }],
  ["PUT", `/v1/merchants/${merchantId}/settlements/crypto/stl_1`, { destination: "x" }],
  ["DELETE", `/v1/merchants/${merchantId}/settlements/crypto/stl_1`]
]

forEachDatabase("Partner API: authentication, versions, limits and idempotency", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string
  let paymentId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
    paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId
  })

  describe("authentication", () => {
    it("responds 401 missing_api_key on every operation without Api-Key (or with an empty one)", async () => {
      for (const [method, path, body] of operations(merchantId, paymentId)) {
        expectError(await server.request(method, path, { body }), 401, "missing_api_key")
        expectError(await server.request(method, path, { body, headers: { "api-key": "  " } }), 401, "missing_api_key")
      }
    })

    it("responds 401 invalid_api_key on every operation for an unknown key", async () => {
      for (const [method, path, body] of operations(merchantId, paymentId)) {
        expectError(await server.request(method, path, { body, apiKey: "sk_test_unknownunknownunknownunknown" }), 401, "invalid_api_key")
      }
    })

    it("responds 401 invalid_api_key for malformed, revoked and wallet keys alike (a valid wallet key is told from no key)", async () => {
      for (const apiKey of ["secret", "sk_test_short", "Bearer sk_test_xxxxxxxxxxxxxxxxxxxxxxxx", `${partner.sandbox}x`]) {
        expectError(await server.request("GET", "/v1/payments", { apiKey }), 401, "invalid_api_key")
      }
      const { revoked, wallet } = await server.run(Effect.gen(function*() {
        const admin = yield* CredentialAdmin
        const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.partnerId, mode: "sandbox" })
        yield* admin.revokeKey(key.keyId)
        const app = yield* admin.createApp({ name: "Wallet", mode: "sandbox" })
        return { revoked: key.apiKey, wallet: app.walletApiKey }
      }))
      expectError(await server.request("GET", "/v1/payments", { apiKey: revoked }), 401, "invalid_api_key")
      expectError(await server.request("GET", "/v1/payments", { apiKey: wallet }), 401, "invalid_api_key")
      expectError(await server.request("GET", "/v1/payments", { apiKey: `${wallet}x` }), 401, "invalid_api_key")
    })

    it("responds 400 header_not_ascii for a non-ASCII credential or pipeline header, before anything else", async () => {
      expectError(await server.request("GET", "/v1/payments", { apiKey: "sk_test_caf\u00e9caf\u00e9caf\u00e9caf\u00e9caf\u00e9" }), 400, "header_not_ascii")
      expectError(
        await server.request("GET", "/v1/payments", { apiKey: partner.sandbox, headers: { "svc-version": "2026-02-18\u00a0" } }),
        400,
        "header_not_ascii"
      )
      expectError(
        await server.request("POST", "/v1/payments", { apiKey: partner.sandbox, headers: { "idempotency-key": "cl\u00e9" }, body: {} }),
        400,
        "header_not_ascii"
      )
      expectError(
        await server.request("GET", "/v1/merchants/payments", { apiKey: partner.sandbox, headers: { "merchant-id": "m\u00e9r" } }),
        400,
        "header_not_ascii"
      )
    })

    it("responds 403 not_sandbox_api_key for live keys on a staging deployment, and serves sandbox keys there", async () => {
      const staging = server.handler({ environment: "staging" })
      expectError(await staging("GET", "/v1/payments", { apiKey: partner.live }), 403, "not_sandbox_api_key")
      expectError(await staging("POST", "/v1/merchants", { apiKey: partner.live, body: { merchantName: "S" } }), 403, "not_sandbox_api_key")
      expect((await staging("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })).status).toBe(200)
    })

    it("checks credentials before the body", async () => {
      expectError(await server.request("POST", "/v1/payments", { rawBody: "{" }), 401, "missing_api_key")
      expectError(await server.request("POST", "/v1/payments", { rawBody: "{", apiKey: "sk_test_unknownunknownunknownunknown" }), 401, "invalid_api_key")
    })
  })

  describe("versions", () => {
    it("answers with the pinned version when none is asked for, on success and on error", async () => {
      const ok = await server.request("GET", "/v1/payments", { apiKey: partner.sandbox })
      expect(ok.headers.get("svc-version")).toBe("2026-02-18")
      const notFound = await server.request("GET", "/v1/payments/pay_unknown", { apiKey: partner.sandbox })
      expect(notFound.headers.get("svc-version")).toBe("2026-02-18")
      const unauthenticated = await server.request("GET", "/v1/payments")
      expect(unauthenticated.headers.get("svc-version")).toBe("2026-02-18")
    })

    it("echoes an explicitly requested version, preview included", async () => {
      for (const version of ["2026-02-18", "2026-02-19.preview"]) {
        const response = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox, headers: { "svc-version": version } })
        expect(response.status).toBe(200)
        expect(response.headers.get("svc-version")).toBe(version)
      }
    })

    it("responds 400 invalid_api_version and unknown_api_version", async () => {
      for (const version of ["latest", "2026-2-18", "2026-02-30", "2026-02-18.beta"]) {
        expectError(
          await server.request("GET", "/v1/payments", { apiKey: partner.sandbox, headers: { "svc-version": version } }),
          400,
          "invalid_api_version"
        )
      }
      const unknown = await server.request("GET", "/v1/payments", { apiKey: partner.sandbox, headers: { "svc-version": "2025-01-01" } })
      expectError(unknown, 400, "unknown_api_version")
      expect(unknown.headers.get("svc-version")).toBe("2026-02-18")
    })
  })

  describe("rate limit", () => {
    it("responds 429 rate_limited with Retry-After once a key's burst is spent, per key", async () => {
      const limited = server.handler({ rateLimit: { perSecond: 0.001, burst: 2 } })
      expect((await limited("GET", "/v1/payments", { apiKey: partner.sandbox })).status).toBe(200)
      expect((await limited("GET", "/v1/merchants", { apiKey: partner.sandbox })).status).toBe(200)
      const third = await limited("POST", "/v1/payments", { apiKey: partner.sandbox, body: {} })
      expectError(third, 429, "rate_limited")
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      // Another key (the partner's live key) has its own bucket.
      expect((await limited("GET", "/v1/payments", { apiKey: partner.live })).status).toBe(200)
    })
  })

  describe("request errors", () => {
    it("responds 404 with the route family's not-found code for unknown operations under the partner paths", async () => {
      expectError(await server.request("GET", "/v1/payments/x/y/z", { apiKey: partner.sandbox }), 404, "payment_not_found")
      expectError(await server.request("PUT", "/v1/payments", { apiKey: partner.sandbox }), 404, "payment_not_found")
      expectError(await server.request("GET", "/v1/refunds", { apiKey: partner.sandbox }), 404, "payment_not_found")
    })

    it("routes ids whose lower case is longer than they are (İ) to their operation's not-found, and paths are case-sensitive", async () => {
      // Found by the HTTP fuzz: a case-insensitive router lower-cased "İ" to two characters and lost the route.
      expectError(await server.request("GET", "/v1/payments/%C4%B0/status", { apiKey: partner.sandbox }), 404, "payment_not_found")
      expectError(await server.request("POST", "/v1/payments/%C4%B0/cancel", { apiKey: partner.sandbox }), 404, "payment_not_found")
      expectError(await server.request("GET", `/V1/PAYMENTS/${paymentId}`, { apiKey: partner.sandbox }), 404, "payment_not_found")
    })

    it("every answer carries Request-Id and Svc-Version", async () => {
      // A merchant of its own: the operations include deleting it.
      const doomed = await server.merchant(partner.sandbox)
      const doomedPayment = (await server.payment(partner.sandbox, doomed)).paymentId
      for (const [method, path, body] of operations(doomed, doomedPayment)) {
        const response = await server.request(method, path, { apiKey: partner.sandbox, body, headers: { "idempotency-key": unique("k") } })
        expect(response.headers.get("request-id")).toMatch(/^req_[0-9a-f]{20}$/)
        expect(response.headers.get("svc-version")).toBe("2026-02-18")
        expect(response.status).toBeLessThan(500)
      }
    })
  })

  describe("idempotency", () => {
    const createBody = (referenceId: string) => ({ merchantId, amount: { unit: "iso4217/USD", value: "990" }, referenceId })
    const create = (body: unknown, key: string, apiKey = partner.sandbox) =>
      server.request("POST", "/v1/payments", { apiKey, body, headers: { "idempotency-key": key } })
    const countByReference = async (referenceId: string, apiKey = partner.sandbox) =>
      (await server.request("GET", `/v1/payments?referenceId=${referenceId}`, { apiKey })).body.data.length

    it("replays the first answer for the same key and body, marked Idempotent-Replayed", async () => {
      const key = unique("pay")
      const referenceId = unique("order")
      const first = await create(createBody(referenceId), key)
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const second = await create(createBody(referenceId), key)
      expect(second.status).toBe(201)
      expect(second.headers.get("idempotent-replayed")).toBe("true")
      expect(second.text).toBe(first.text)
      expect(second.headers.get("content-type")).toContain("application/json")
      expect(second.headers.get("svc-version")).toBe("2026-02-18")
      expect(await countByReference(referenceId)).toBe(1)
    })

    it("responds 409 idempotency_conflict for the same key with another body", async () => {
      const key = unique("pay")
      expect((await create(createBody(unique("order")), key)).status).toBe(201)
      expectError(await create(createBody(unique("order")), key), 409, "idempotency_conflict")
    })

    it("scopes keys to the partner and the route", async () => {
      const key = unique("shared")
      const referenceId = unique("order")
      const mine = await create(createBody(referenceId), key)
      const other = await server.partner()
      const otherMerchant = await server.merchant(other.sandbox)
      const theirs = await create({ ...createBody(referenceId), merchantId: otherMerchant }, key, other.sandbox)
      expect(theirs.status).toBe(201)
      expect(theirs.headers.get("idempotent-replayed")).toBeNull()
      expect(theirs.body.paymentId).not.toBe(mine.body.paymentId)
      const cancel = await server.request("POST", `/v1/payments/${mine.body.paymentId}/cancel`, {
        apiKey: partner.sandbox,
        headers: { "idempotency-key": key }
      })
      expect(cancel.status).toBe(200)
      expect(cancel.headers.get("idempotent-replayed")).toBeNull()
    })

    it("replays stored 4xx answers too", async () => {
      const key = unique("missing")
      const body = { ...createBody("r"), merchantId: "mer_00000000000000000000000000" }
      const first = await create(body, key)
      expectError(first, 404, "merchant_not_found")
      const second = await create(body, key)
      expectError(second, 404, "merchant_not_found")
      expect(second.headers.get("idempotent-replayed")).toBe("true")
    })

    it("replays a cancel instead of answering invalid_state", async () => {
      const payment = await server.payment(partner.sandbox, merchantId)
      const key = unique("cancel")
      const cancel = () => server.request("POST", `/v1/payments/${payment.paymentId}/cancel`, { apiKey: partner.sandbox, headers: { "idempotency-key": key } })
      const first = await cancel()
      const second = await cancel()
      expect(first.status).toBe(200)
      expect(second.status).toBe(200)
      expect(second.text).toBe(first.text)
      expect(second.headers.get("idempotent-replayed")).toBe("true")
    })

    it("responds 400 params_validation for an empty or over-long key", async () => {
      expectError(await create(createBody("r"), ""), 400, "params_validation")
      expectError(await create(createBody("r"), "k".repeat(256)), 400, "params_validation")
      expect((await create(createBody(unique("order")), "k".repeat(255))).status).toBe(201)
    })
  })
})
