import { CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

// The gateway operations that need no chain (read, status with long poll, cancel) and every
// code of the gateway's authentication (API rules §2, §10).

interface App {
  readonly appId: string
  readonly walletApiKey: string
}

forEachDatabase("Gateway API", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string
  let sandboxApp: App
  let liveApp: App

  const app = (mode: "live" | "sandbox") =>
    server.run(Effect.gen(function*() {
      return yield* (yield* CredentialAdmin).createApp({ name: `Wallet ${mode}`, mode })
    }))
  const asApp = (a: App, clientId = "client-1") => ({ "app-id": a.appId, "client-id": clientId })
  const newPayment = async () => (await server.payment(partner.sandbox, merchantId)).paymentId as string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Corner Coffee")
    sandboxApp = await app("sandbox")
    liveApp = await app("live")
  })

  describe("GET /v1/gateway/payment/{id}", () => {
    it("shows the buyer what to pay, to whom and until when, with a wallet key or an app id", async () => {
      const paymentId = await newPayment()
      const byKey = await server.request("GET", `/v1/gateway/payment/${paymentId}`, { apiKey: sandboxApp.walletApiKey })
      const byApp = await server.request("GET", `/v1/gateway/payment/${paymentId}`, { headers: asApp(sandboxApp) })
      expect(byKey.status).toBe(200)
      expect(byApp.text).toBe(byKey.text)
      expect(Object.keys(byKey.body)).toEqual(["status", "amount", "expiresAt", "merchant", "buyer"])
      expect(byKey.body).toMatchObject({
        status: "requires_action",
        amount: {
          unit: "iso4217/USD",
          display: { assetName: "US Dollar", assetSymbol: "USD", decimals: 2, iconUrl: null, networkIconUrl: null, networkName: null }
        },
        merchant: { name: "Corner Coffee", iconUrl: null },
        buyer: null
      })
    })

    it("reports payments of the other mode, and unknown ids, as payment_not_found", async () => {
      const paymentId = await newPayment()
      expectError(await server.request("GET", `/v1/gateway/payment/${paymentId}`, { apiKey: liveApp.walletApiKey }), 404, "payment_not_found")
      expectError(await server.request("GET", `/v1/gateway/payment/${paymentId}`, { headers: asApp(liveApp) }), 404, "payment_not_found")
      expectError(await server.request("GET", "/v1/gateway/payment/pay_nothing", { headers: asApp(sandboxApp) }), 404, "payment_not_found")
      expectError(await server.request("GET", "/v1/gateway/payment/%20", { headers: asApp(sandboxApp) }), 404, "payment_not_found")
    })
  })

  describe("authentication", () => {
    const path = "/v1/gateway/payment/pay_x"

    it("answers each API rules §2 code", async () => {
      expectError(await server.request("GET", path), 401, "missing_auth_headers")
      expectError(await server.request("GET", path, { headers: { "client-id": "c" } }), 401, "missing_app_id")
      expectError(await server.request("GET", path, { headers: { "app-id": sandboxApp.appId } }), 401, "missing_client_id")
      expectError(
        await server.request("GET", path, { apiKey: sandboxApp.walletApiKey, headers: { "app-id": sandboxApp.appId } }),
        400,
        "conflicting_auth_headers"
      )
      expectError(await server.request("GET", path, { headers: { "app-id": "app_unknown", "client-id": "c" } }), 401, "invalid_app_id")
      expectError(await server.request("GET", path, { headers: { "app-id": "not-an-app", "client-id": "c" } }), 401, "invalid_app_id")
      expectError(await server.request("GET", path, { apiKey: "wk_test_unknownunknownunknownunknown" }), 401, "invalid_api_key")
      expectError(await server.request("GET", path, { apiKey: partner.sandbox }), 401, "unauthorized")
      expectError(await server.request("GET", path, { headers: { "app-id": sandboxApp.appId, "client-id": "cl\u00e9" } }), 400, "header_not_ascii")
    })

    it("accepts Api-Key with Client-Id, and records the SDK headers without requiring them", async () => {
      const paymentId = await newPayment()
      const response = await server.request("GET", `/v1/gateway/payment/${paymentId}`, {
        apiKey: sandboxApp.walletApiKey,
        headers: { "client-id": "c", "sdk-name": "wallet-sdk", "sdk-version": "1.2.3", "sdk-platform": "ios" }
      })
      expect(response.status).toBe(200)
    })

    it("refuses revoked wallet keys, and live credentials on a staging deployment", async () => {
      const revoked = await server.run(Effect.gen(function*() {
        const admin = yield* CredentialAdmin
        const created = yield* admin.createApp({ name: "Revoked", mode: "sandbox" })
        yield* admin.revokeKey(created.keyId)
        return created.walletApiKey
      }))
      expectError(await server.request("GET", path, { apiKey: revoked }), 401, "invalid_api_key")
      const staging = server.handler({ environment: "staging" })
      expectError(await staging("GET", path, { headers: asApp(liveApp) }), 403, "not_sandbox_api_key")
      expectError(await staging("GET", path, { apiKey: liveApp.walletApiKey }), 403, "not_sandbox_api_key")
    })

    it("limits an app's callers per payment: a new Client-Id per request gets no new allowance", async () => {
      const limited = server.handler({ rateLimit: { perSecond: 0.001, burst: 2 } })
      const paymentId = await newPayment()
      const read = (clientId: string, id = paymentId) => limited("GET", `/v1/gateway/payment/${id}`, { headers: asApp(sandboxApp, clientId) })
      expect((await read("buyer-a")).status).toBe(200)
      expect((await read("buyer-b")).status).toBe(200)
      const refused = await read("buyer-c")
      expectError(refused, 429, "rate_limited")
      expect(refused.headers.get("retry-after")).not.toBeNull()
      expectError(await limited("POST", `/v1/gateway/payment/${paymentId}/cancel`, { headers: asApp(sandboxApp, "buyer-d") }), 429, "rate_limited")
      // Another payment has its own allowance; so has another app.
      expect((await read("buyer-a", await newPayment())).status).toBe(200)
      expect((await limited("GET", `/v1/gateway/payment/${paymentId}`, { headers: asApp(liveApp, "buyer-a") })).body.code).toBe("payment_not_found")
    })

    it("limits a wallet key as one caller, whatever Client-Id it sends", async () => {
      const limited = server.handler({ rateLimit: { perSecond: 0.001, burst: 1 } })
      const read = async (clientId: string) =>
        limited("GET", `/v1/gateway/payment/${await newPayment()}`, { apiKey: sandboxApp.walletApiKey, headers: { "client-id": clientId } })
      expect((await read("one")).status).toBe(200)
      expectError(await read("two"), 429, "rate_limited")
    })
  })

  describe("GET /v1/gateway/payment/{id}/status", () => {
    const statusOf = (paymentId: string, query = "") =>
      server.request("GET", `/v1/gateway/payment/${paymentId}/status${query}`, { headers: asApp(sandboxApp) })

    it("answers the status and the polling delay", async () => {
      const paymentId = await newPayment()
      expect((await statusOf(paymentId)).body).toEqual({ status: "requires_action", isFinal: false, pollInMs: 2000 })
      await server.process(paymentId)
      expect((await statusOf(paymentId)).body).toEqual({ status: "processing", isFinal: false, pollInMs: 1000 })
      await server.succeed(paymentId)
      expect((await statusOf(paymentId)).body).toEqual({ status: "succeeded", isFinal: true, pollInMs: null })
    })

    it("long-polls: waits up to maxPollMs, and answers as soon as the status changes", async () => {
      const paymentId = await newPayment()
      const quiet = Date.now()
      expect((await statusOf(paymentId, "?maxPollMs=600")).body.status).toBe("requires_action")
      expect(Date.now() - quiet).toBeGreaterThanOrEqual(550)

      const started = Date.now()
      const waiting = statusOf(paymentId, "?maxPollMs=20000")
      await new Promise((r) => setTimeout(r, 300))
      await server.request("POST", `/v1/gateway/payment/${paymentId}/cancel`, { headers: asApp(sandboxApp) })
      expect((await waiting).body).toEqual({ status: "cancelled", isFinal: true, pollInMs: null })
      expect(Date.now() - started).toBeLessThan(5000)
      const final = Date.now()
      await statusOf(paymentId, "?maxPollMs=20000")
      expect(Date.now() - final).toBeLessThan(1000)
    })

    it("validates maxPollMs", async () => {
      const paymentId = await newPayment()
      expectError(await statusOf(paymentId, "?maxPollMs=abc"), 400, "invalid_params")
      expectError(await statusOf(paymentId, "?maxPollMs=-1"), 400, "invalid_params")
      expectError(await statusOf(paymentId, "?maxPollMs=30001"), 400, "params_validation")
      expect((await statusOf(paymentId, "?maxPollMs=0")).status).toBe(200)
    })
  })

  describe("POST /v1/gateway/payment/{id}/cancel", () => {
    it("cancels a waiting payment for the buyer, once", async () => {
      const paymentId = await newPayment()
      const before = Math.floor(Date.now() / 1000)
      const cancelled = await server.request("POST", `/v1/gateway/payment/${paymentId}/cancel`, { headers: asApp(sandboxApp) })
      expect(cancelled.status).toBe(200)
      expect(Object.keys(cancelled.body)).toEqual(["paymentId", "status", "cancelledAt", "cancelledReason"])
      expect(cancelled.body).toMatchObject({ paymentId, status: "cancelled", cancelledReason: "cancelled_by_user" })
      expect(cancelled.body.cancelledAt).toBeGreaterThanOrEqual(before)
      expectError(await server.request("POST", `/v1/gateway/payment/${paymentId}/cancel`, { headers: asApp(sandboxApp) }), 409, "invalid_state")
      const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })
      expect(record.body).toMatchObject({ status: "cancelled", cancelledReason: "cancelled_by_user" })
    })

    it("refuses payments past waiting, and reports other-mode payments as missing", async () => {
      const processing = await newPayment()
      await server.process(processing)
      expectError(await server.request("POST", `/v1/gateway/payment/${processing}/cancel`, { headers: asApp(sandboxApp) }), 409, "invalid_state")
      const other = await newPayment()
      expectError(await server.request("POST", `/v1/gateway/payment/${other}/cancel`, { headers: asApp(liveApp) }), 404, "payment_not_found")
    })
  })
})
