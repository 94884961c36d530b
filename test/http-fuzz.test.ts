import { CredentialAdmin } from "@paygate/adapters"
import { errorCodes, statusOf } from "@paygate/domain"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, expect, it } from "vitest"
import {
  forEachDatabase,
  makeTestServer,
  type TestPartner,
  type TestServer
} from "../packages/http/test/TestServer.ts"

// Bad input never crashes the service and never answers 500: a fast-check property sends random
// malformed bodies, headers (non-ASCII bytes included), paths and query strings to every route.

const routes: ReadonlyArray<readonly [method: string, template: string]> = [
  ["POST", "/v1/merchant/payment"],
  ["GET", "/v1/merchant/payment/:id/status"],
  ["POST", "/v1/payments"],
  ["GET", "/v1/payments"],
  ["GET", "/v1/payments/:id"],
  ["POST", "/v1/payments/:id/cancel"],
  ["GET", "/v1/payments/:id/status"],
  ["POST", "/v1/refunds"],
  ["POST", "/v1/merchants"],
  ["GET", "/v1/merchants"],
  ["GET", "/v1/merchants/payments"],
  ["GET", "/v1/merchants/:id"],
  ["PATCH", "/v1/merchants/:id"],
  ["DELETE", "/v1/merchants/:id"],
  ["GET", "/v1/merchants/:id/payments"],
  ["GET", "/v1/merchants/:id/settlements"],
  ["POST", "/v1/merchants/:id/settlements/crypto"],
  ["PUT", "/v1/merchants/:id/settlements/crypto/:id"],
  ["DELETE", "/v1/merchants/:id/settlements/crypto/:id"],
  ["GET", "/v1/gateway/payment/:id"],
  ["GET", "/v1/gateway/payment/:id/status"],
  ["POST", "/v1/gateway/payment/:id/cancel"],
  ["GET", "/healthz"],
  ["GET", "/readyz"],
  ["GET", "/nowhere/:id"]
]

// Header values fetch can carry: latin1 without controls (bytes above 0x7f are the non-ASCII case).
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c > 0x9f).map((c) => String.fromCharCode(c)), maxLength: 40 })
  .map((s) => s.trim())

const pathSegment = fc.oneof(
  fc.constantFrom("pay_unknown", "mer_unknown", "stl_unknown", "", "..", "%", "pay_", "x".repeat(300)),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", maxLength: 10 }).map(encodeURIComponent)
)

const query = fc.array(
  fc.tuple(fc.constantFrom("limit", "cursor", "status", "sortDir", "startTs", "endTs", "merchantId", "referenceId", "search", "x"), fc.string({ maxLength: 20 })),
  { maxLength: 4 }
).map((pairs) => (pairs.length === 0 ? "" : `?${new URLSearchParams(pairs).toString()}`))

const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 50 }),
  fc.record({
    merchantId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    amount: fc.oneof(fc.record({ unit: fc.string(), value: fc.oneof(fc.string(), fc.integer()) }), fc.string(), fc.constant(null)),
    referenceId: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
    paymentId: fc.string(),
    merchantName: fc.oneof(fc.string(), fc.constant(null)),
    settlements: fc.array(fc.record({ asset: fc.string(), destination: fc.string() }), { maxLength: 3 })
  }, { requiredKeys: [] }).map((value) => JSON.stringify(value))
)

const request = (keys: { readonly valid: ReadonlyArray<string>; readonly apps: ReadonlyArray<string> }) =>
  fc.record({
    route: fc.constantFrom(...routes),
    otherMethod: fc.option(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"), { freq: 4 }),
    segments: fc.array(pathSegment, { minLength: 2, maxLength: 2 }),
    query,
    body,
    apiKey: fc.option(fc.oneof(fc.constantFrom(...keys.valid), headerText), { nil: undefined }),
    merchantId: fc.option(headerText, { nil: undefined }),
    appId: fc.option(fc.oneof(fc.constantFrom(...keys.apps), headerText), { nil: undefined }),
    clientId: fc.option(headerText, { nil: undefined }),
    version: fc.option(fc.oneof(fc.constantFrom("2026-02-18", "2026-02-19.preview", "2026-02-31"), headerText), { nil: undefined }),
    idempotencyKey: fc.option(headerText, { nil: undefined }),
    contentType: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "")
  })

forEachDatabase("HTTP fuzz", (database) => {
  let server: TestServer
  let partner: TestPartner
  let wallet: { readonly appId: string; readonly walletApiKey: string }

  beforeAll(async () => {
    server = await makeTestServer(database)
    partner = await server.partner()
    wallet = await server.run(Effect.gen(function*() {
      return yield* (yield* CredentialAdmin).createApp({ name: "Fuzz wallet", mode: "sandbox" })
    }))
  })
  afterAll(async () => {
    await server?.close()
  })

  it("never answers 500, and every error is a contract {code, message} with its status", async () => {
    const known = new Set<string>(errorCodes)
    await fc.assert(
      fc.asyncProperty(request({ valid: [partner.sandbox, partner.live, wallet.walletApiKey], apps: [wallet.appId] }), async (r) => {
        const [method, template] = r.route
        let i = 0
        const path = template.replace(/:id/g, () => r.segments[i++] ?? "x") + r.query
        const headers: Record<string, string> = {}
        if (r.apiKey !== undefined) headers["api-key"] = r.apiKey
        if (r.merchantId !== undefined) headers["merchant-id"] = r.merchantId
        if (r.appId !== undefined) headers["app-id"] = r.appId
        if (r.clientId !== undefined) headers["client-id"] = r.clientId
        if (r.version !== undefined) headers["svc-version"] = r.version
        if (r.idempotencyKey !== undefined) headers["idempotency-key"] = r.idempotencyKey
        if (r.contentType !== "") headers["content-type"] = r.contentType
        const verb = r.otherMethod ?? method
        const response = await server.fetch(`http://paygate.test${path}`, {
          method: verb,
          headers,
          ...(verb === "GET" || r.body === undefined ? {} : { body: r.body })
        })
        const text = await response.text()
        expect(response.status, `${verb} ${path} → ${text}`).not.toBe(500)
        if (response.status >= 400) {
          const parsed = JSON.parse(text)
          expect(Object.keys(parsed).sort(), text).toEqual(["code", "message"])
          expect(known.has(parsed.code), text).toBe(true)
          expect(statusOf(parsed.code), `${verb} ${path} → ${response.status} ${text}`).toBe(response.status)
          expect(response.headers.get("content-type")).toContain("application/json")
        }
      }),
      { numRuns: 400 }
    )
  })
})
