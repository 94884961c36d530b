import { CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { forEachDatabase, type TestPartner, type TestResponse, useTestServer } from "../../../test/support/TestServer.ts"

type Send = (method: string, path: string, options?: { apiKey?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string }) => Promise<TestResponse>

/** The session cookie's token of a sign-in answer. */
const tokenOf = (response: TestResponse) => /paygate_session=([^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? ""

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const signIn = async (send: Send, apiKey: string) => {
  const response = await send("POST", "/dashboard/session", { body: { apiKey } })
  expect(response.status, response.text).toBe(201)
  const token = tokenOf(response)
  return { response, token, cookie: `paygate_session=${token}`, csrfToken: response.body.csrfToken as string }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

forEachDatabase("Dashboard sessions", (database) => {
  const server = useTestServer(database)
  const send: Send = (method, path, options) => server.request(method, path, options)
  const keyIdOf = async (partner: TestPartner, mode: "live" | "sandbox") =>
    server.run(Effect.gen(function*() {
      const keys = yield* (yield* CredentialAdmin).listKeys(partner.partnerId)
      return keys.find((key) => key.mode === mode && key.revokedAt === null)!.keyId
    }))

  describe("sign-in", () => {
    it("exchanges a partner key for an HttpOnly, SameSite=Strict cookie whose token is stored only as its SHA-256", async () => {
      const partner = await server.partner()
      const { response, token } = await signIn(send, partner.sandbox)
      expect(response.body).toEqual({
        partnerId: partner.partnerId,
        partnerName: expect.any(String),
        keyId: await keyIdOf(partner, "sandbox"),
        mode: "sandbox",
        csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expiresAt: expect.any(Number),
        member: null
      })
      expect(response.body.expiresAt - Date.now() / 1000).toBeGreaterThan(3500)
      expect(response.body.expiresAt - Date.now() / 1000).toBeLessThanOrEqual(3600)
      expect(response.headers.get("set-cookie")).toBe(`paygate_session=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200`)
      expect(response.headers.get("cache-control")).toBe("no-store")
      // 32 random bytes.
      expect(Buffer.from(token, "base64url").length).toBe(32)
      const stored = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`SELECT token_sha256 FROM dashboard_sessions WHERE token_sha256 IN (${sha256(token)}, ${token})`
      }))
      expect(stored).toEqual([{ token_sha256: sha256(token) }])
    })

    it("answers GET /dashboard/session with the same session (and CSRF token) while it is open, else 401 unauthorized", async () => {
      const partner = await server.partner()
      const { response, cookie } = await signIn(send, partner.live)
      const again = await send("GET", "/dashboard/session", { headers: { cookie } })
      expect(again.status).toBe(200)
      expect(again.body).toEqual({ ...response.body, expiresAt: expect.any(Number) })
      expect(again.body.mode).toBe("live")
      for (const headers of [{}, { cookie: "paygate_session=" }, { cookie: "paygate_session=unknown-token" }]) {
        const ended = await send("GET", "/dashboard/session", { headers })
        expect(ended.status).toBe(401)
        expect(ended.body).toEqual({ code: "unauthorized", message: "Your dashboard session has ended; sign in again." })
        expect(ended.headers.get("set-cookie")).toContain("Max-Age=0")
      }
    })

    it("refuses in the contract's order: missing, unknown, revoked or wallet key (alike), live key on staging; malformed bodies are invalid_params", async () => {
      const partner = await server.partner()
      const refusal = async (options: Parameters<Send>[2], status: number, code: string, sender: Send = send) => {
        const response = await sender("POST", "/dashboard/session", options)
        expect([response.status, response.body?.code], JSON.stringify(options)).toEqual([status, code])
        expect(response.headers.get("set-cookie")).toBeNull()
      }
      await refusal({ headers: { "content-type": "application/json" } }, 401, "missing_api_key")
      await refusal({ body: {} }, 401, "missing_api_key")
      await refusal({ body: { apiKey: null } }, 401, "missing_api_key")
      await refusal({ body: { apiKey: "sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } }, 401, "invalid_api_key")
      await refusal({ body: { apiKey: "nonsense" } }, 401, "invalid_api_key")
      // A valid wallet key is answered as a made-up one: the response tells nothing about it.
      const wallet = await server.walletKey("sandbox")
      const forged = `wk_test_${"A".repeat(wallet.length - 8)}`
      const answers = []
      for (const apiKey of [wallet, forged]) {
        const response = await send("POST", "/dashboard/session", { body: { apiKey } })
        answers.push([response.status, response.body])
      }
      expect(answers[0]).toEqual([401, { code: "invalid_api_key", message: "The API key is not valid." }])
      expect(answers[1]).toEqual(answers[0])
      const staging: Send = server.handler({ environment: "staging" })
      await refusal({ body: { apiKey: partner.live } }, 403, "not_sandbox_api_key", staging)
      expect((await staging("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(201)
      await refusal({ body: { apiKey: 42 } }, 400, "invalid_params")
      await refusal({ rawBody: "{not json" }, 400, "invalid_params")
      await refusal({ rawBody: "[]" }, 400, "invalid_params")
      await server.run(Effect.gen(function*() {
        yield* (yield* CredentialAdmin).revokeKey(yield* Effect.promise(() => keyIdOf(partner, "sandbox")))
      }))
      await refusal({ body: { apiKey: partner.sandbox } }, 401, "invalid_api_key")
    })

    it("limits failed sign-ins per client: 429 rate_limited with Retry-After, a right key included, while its allowance is spent", async () => {
      const partner = await server.partner()
      const own: Send = server.handler({})
      for (let attempt = 0; attempt < 10; attempt++) {
        expect((await own("POST", "/dashboard/session", { body: { apiKey: `sk_test_guess${attempt}AAAAAAAAAAAAAAAA` } })).status).toBe(401)
      }
      for (const apiKey of ["sk_test_guessAAAAAAAAAAAAAAAAAAAA", partner.sandbox]) {
        const limited = await own("POST", "/dashboard/session", { body: { apiKey } })
        expect(limited.status).toBe(429)
        expect(limited.body.code).toBe("rate_limited")
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      }
      // Successful sign-ins take nothing from the allowance (another handler: a fresh one).
      const fresh: Send = server.handler({})
      for (let attempt = 0; attempt < 12; attempt++) expect((await fresh("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(201)
    })
  })

  describe("against other sites and guessers", () => {
    it("signs in with Content-Type: application/json only: a form's text/plain body that reads as JSON opens nothing", async () => {
      const partner = await server.partner()
      const body = `{"apiKey":"${partner.sandbox}","x":"="}`
      for (const contentType of ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"]) {
        const response = await send("POST", "/dashboard/session", { rawBody: body, headers: { "content-type": contentType } })
        expect([response.status, response.body.code], contentType).toEqual([400, "invalid_params"])
        expect(response.headers.get("set-cookie")).toBeNull()
      }
      // The same key as JSON signs in (without the form's stray field, which a strict body refuses).
      const json = await send("POST", "/dashboard/session", {
        rawBody: `{"apiKey":"${partner.sandbox}"}`,
        headers: { "content-type": "Application/JSON; charset=utf-8" }
      })
      expect(json.status).toBe(201)
    })

    it("refuses a request a browser says comes from another origin: sign-in, changes with the cookie (CSRF token and all), sign-out", async () => {
      const partner = await server.partner()
      const crossSite = [
        { origin: "https://evil.example" },
        { origin: "null" },
        { origin: "http://paygate.test:8080" },
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "http://paygate.test", "sec-fetch-site": "same-site" }
      ]
      for (const headers of crossSite) {
        const response = await send("POST", "/dashboard/session", { body: { apiKey: partner.sandbox }, headers })
        expect([response.status, response.body.code], JSON.stringify(headers)).toEqual([403, "forbidden"])
        expect(response.headers.get("set-cookie")).toBeNull()
      }
      const { cookie, csrfToken } = await signIn(send, partner.sandbox)
      for (const headers of crossSite) {
        const change = await send("POST", "/v1/merchants", {
          headers: { cookie, "csrf-token": csrfToken, "idempotency-key": `x-${Math.random()}`, ...headers },
          body: { merchantName: "Planted" }
        })
        expect([change.status, change.body.code], JSON.stringify(headers)).toEqual([403, "forbidden"])
        expect((await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": csrfToken, ...headers } })).status).toBe(403)
      }
      // Reads are not changes (and SameSite keeps the cookie from other sites' reads).
      expect((await send("GET", "/v1/merchants", { headers: { cookie, origin: "https://evil.example" } })).status).toBe(200)
      // The page's own origin, PUBLIC_URL's, and clients that are no browser pass.
      const own = { host: "paygate.test", origin: "http://paygate.test", "sec-fetch-site": "same-origin" }
      expect((await send("POST", "/v1/merchants", { headers: { cookie, "csrf-token": csrfToken, "idempotency-key": `o-${Math.random()}`, ...own }, body: { merchantName: "Own" } })).status).toBe(201)
      const published: Send = server.handler({ config: { PUBLIC_URL: "https://pay.example/" } })
      expect((await published("POST", "/dashboard/session", { body: { apiKey: partner.sandbox }, headers: { origin: "https://pay.example" } })).status).toBe(201)
      expect((await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": csrfToken, ...own } })).status).toBe(204)
    })

    it("counts failed sign-ins where every API process sees them", async () => {
      const partner = await server.partner()
      const fail = (sender: Send) => sender("POST", "/dashboard/session", { body: { apiKey: `sk_test_guess${Math.random().toString(36).slice(2)}AAAAAAAA` } })
      // Two handlers over one database stand for two API processes; one client reaches both.
      const first: Send = server.handler({ peer: "198.51.100.20" })
      const second: Send = server.handler({ peer: "198.51.100.20" })
      for (let attempt = 0; attempt < 5; attempt++) expect((await fail(first)).status).toBe(401)
      for (let attempt = 0; attempt < 5; attempt++) expect((await fail(second)).status).toBe(401)
      for (const sender of [first, second]) {
        const limited = await sender("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })
        expect([limited.status, limited.body.code]).toEqual([429, "rate_limited"])
      }
      // Another client is not limited.
      expect((await server.handler({ peer: "198.51.100.21" })("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(201)
    })

    it("keys the limit on the client behind TRUSTED_PROXIES (never on the proxy, never on what the client forwards itself), IPv6 clients by /64", async () => {
      const partner = await server.partner()
      const proxy: Send = server.handler({ peer: "10.0.0.2", config: { TRUSTED_PROXIES: "10.0.0.0/8" } })
      const from = (forwardedFor: string) => (apiKey: string) =>
        proxy("POST", "/dashboard/session", { body: { apiKey }, headers: { "x-forwarded-for": forwardedFor } })
      const guess = () => `sk_test_guess${Math.random().toString(36).slice(2)}AAAAAAAA`
      // One client spends its allowance, inventing a new left-hand address each time.
      for (let attempt = 0; attempt < 10; attempt++) expect((await from(`6.6.6.${attempt}, 198.51.100.30`)(guess())).status).toBe(401)
      expect((await from("198.51.100.30")(partner.sandbox)).status).toBe(429)
      // Everyone else behind the same proxy still signs in.
      expect((await from("198.51.100.31")(partner.sandbox)).status).toBe(201)
      expect((await from("203.0.113.5, 10.1.1.1")(partner.sandbox)).status).toBe(201)

      const v6 = (peer: string): Send => server.handler({ peer })
      for (let attempt = 0; attempt < 10; attempt++) {
        expect((await v6(`2001:db8:40:1::${(attempt + 1).toString(16)}`)("POST", "/dashboard/session", { body: { apiKey: guess() } })).status).toBe(401)
      }
      expect((await v6("2001:db8:40:1:ffff::1")("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(429)
      expect((await v6("2001:db8:40:2::1")("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(201)
    })

    it("has a ceiling for all clients together (DASHBOARD_SIGN_IN_CEILING_PER_MINUTE): rotating addresses does not buy more guesses", async () => {
      const partner = await server.partner()
      // 6 at once, then one every 10 s: a busy machine's pauses of a second or two between requests
      // cannot refill the allowance behind the test's back.
      const config = { DASHBOARD_SIGN_IN_CEILING_PER_MINUTE: "6" }
      let limited = 0
      try {
        for (let client = 1; client <= 20 && limited === 0; client++) {
          const response = await server.handler({ peer: `198.18.0.${client}`, config })("POST", "/dashboard/session", {
            body: { apiKey: `sk_test_guess${client}AAAAAAAAAAAAAAAA` }
          })
          if (response.status === 429) limited = client
          else expect(response.status).toBe(401)
        }
        // The seventh is refused (an eighth only if the loop took over 10 s).
        expect(limited).toBeGreaterThan(6)
        expect(limited).toBeLessThan(9)
        const fresh = await server.handler({ peer: "198.19.0.1", config })("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })
        expect([fresh.status, fresh.body.code]).toEqual([429, "rate_limited"])
      } finally {
        // The ceiling is shared by every handler of the suite.
        await server.run(Effect.gen(function*() {
          yield* (yield* SqlClient.SqlClient)`DELETE FROM sign_in_attempts WHERE client = '*'`
        }))
      }
    })

    it("signs a live key in over TLS only (a trusted proxy's X-Forwarded-Proto) or straight from this machine, and marks the cookie Secure over TLS", async () => {
      const partner = await server.partner()
      const remote: Send = server.handler({ peer: "198.51.100.40" })
      const refused = await remote("POST", "/dashboard/session", { body: { apiKey: partner.live } })
      expect([refused.status, refused.body]).toEqual([403, { code: "forbidden", message: "Live keys sign in over HTTPS only." }])
      // A forged live key is refused the same way: the response says nothing about the key.
      const forged = await remote("POST", "/dashboard/session", { body: { apiKey: `sk_live_${"A".repeat(43)}` } })
      expect([forged.status, forged.body]).toEqual([refused.status, refused.body])
      expect((await remote("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })).status).toBe(201)
      // A client's own X-Forwarded-Proto is not believed.
      expect((await remote("POST", "/dashboard/session", { body: { apiKey: partner.live }, headers: { "x-forwarded-proto": "https" } })).status).toBe(403)

      const proxy: Send = server.handler({ peer: "10.0.0.2", config: { TRUSTED_PROXIES: "10.0.0.0/8" } })
      const plain = await proxy("POST", "/dashboard/session", { body: { apiKey: partner.live }, headers: { "x-forwarded-for": "198.51.100.41", "x-forwarded-proto": "http" } })
      expect(plain.status).toBe(403)
      const tls = await proxy("POST", "/dashboard/session", { body: { apiKey: partner.live }, headers: { "x-forwarded-for": "198.51.100.41", "x-forwarded-proto": "https" } })
      expect(tls.status).toBe(201)
      expect(tls.headers.get("set-cookie")).toMatch(/; Secure$/)
      // Loopback straight to the socket: the local set-up.
      const local = await server.handler({ peer: "127.0.0.1" })("POST", "/dashboard/session", { body: { apiKey: partner.live } })
      expect(local.status).toBe(201)
      expect(local.headers.get("set-cookie")).not.toContain("Secure")
      // Loopback as a trusted proxy forwards someone else's plain HTTP.
      const loopProxy: Send = server.handler({ peer: "127.0.0.1", config: { TRUSTED_PROXIES: "127.0.0.1" } })
      expect((await loopProxy("POST", "/dashboard/session", { body: { apiKey: partner.live }, headers: { "x-forwarded-for": "198.51.100.42" } })).status).toBe(403)
    })
  })

  it("marks the cookie Secure when PUBLIC_URL is HTTPS", async () => {
    const partner = await server.partner()
    const https: Send = server.handler({ config: { PUBLIC_URL: "https://pay.example" } })
    const { response, cookie, csrfToken } = await signIn(https, partner.sandbox)
    expect(response.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/)
    const out = await https("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": csrfToken } })
    expect(out.headers.get("set-cookie")).toBe("paygate_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure")
  })

  it("answers hostile cookies and CSRF headers with contract errors, never a 500", async () => {
    const partner = await server.partner()
    const { cookie } = await signIn(send, partner.sandbox)
    const tokens = ["%", "%E0%A4%A", "%00", "\"quoted\"", "a".repeat(5000), "é", "paygate_session=x", " ", "=;="]
    for (const token of tokens) {
      for (const path of ["/dashboard/session", "/v1/payments"]) {
        const response = await send("GET", path, { headers: { cookie: `paygate_session=${token}` } })
        expect(["unauthorized", "missing_api_key"], `${path} ${token.slice(0, 20)}`).toContain(response.body?.code)
      }
    }
    const nonAscii = await send("POST", "/v1/merchants", { headers: { cookie, "csrf-token": "tök\u00ff" }, body: { merchantName: "x" } })
    expect(nonAscii.body.code).toBe("header_not_ascii")
    expect((await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": "tök" } })).body.code).toBe("header_not_ascii")
    expect((await send("GET", "/dashboard/session", { headers: { cookie } })).status).toBe(200)
  })

  describe("the cookie on the partner API", () => {
    it("is taken by every partner operation of /openapi.json: reads answer, changes without Csrf-Token are 403 forbidden", async () => {
      const partner = await server.partner()
      const { cookie } = await signIn(send, partner.sandbox)
      const spec = (await send("GET", "/openapi.json")).body
      const operations = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, operation]) => (operation.security ?? []).some((requirement: object) => "DashboardSession" in requirement))
          .map(([method]) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, "x_unknown")] as const)
      )
      expect(operations.length).toBeGreaterThanOrEqual(25)
      expect(operations.some(([, path]) => path.startsWith("/v1/merchant/") || path.startsWith("/v1/gateway/"))).toBe(false)
      for (const [method, path] of operations) {
        const answer = await send(method, path, { headers: { cookie }, ...(method === "GET" || method === "DELETE" ? {} : { body: {} }) })
        if (method === "GET") expect(["missing_api_key", "unauthorized", "forbidden"], `${method} ${path}`).not.toContain(answer.body?.code)
        else expect([answer.status, answer.body.code], `${method} ${path}`).toEqual([403, "forbidden"])
      }
    })

    it("acts as the session's key: reads without a CSRF token, changes only with the session's Csrf-Token", async () => {
      const partner = await server.partner()
      const merchantId = await server.merchant(partner.sandbox)
      const payment = await server.payment(partner.sandbox, merchantId)
      const { cookie, csrfToken } = await signIn(send, partner.sandbox)
      const listed = await send("GET", "/v1/payments", { headers: { cookie } })
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((p: any) => p.paymentId)).toEqual([payment.paymentId])
      expect((await send("GET", `/v1/payments/${payment.paymentId}`, { headers: { cookie } })).body.paymentId).toBe(payment.paymentId)

      const create = (headers: Record<string, string>) => send("POST", "/v1/merchants", { headers: { cookie, "idempotency-key": `k-${Math.random()}`, ...headers }, body: { merchantName: `Shop ${Math.random()}` } })
      for (const headers of [{}, { "csrf-token": "wrong" }, { "csrf-token": `${csrfToken}x` }, { "csrf-token": "" }]) {
        const refused = await create(headers)
        expect(refused.status).toBe(403)
        expect(refused.body).toEqual({ code: "forbidden", message: "Missing or wrong Csrf-Token header." })
      }
      const cancelled = await send("POST", `/v1/payments/${payment.paymentId}/cancel`, { headers: { cookie } })
      expect(cancelled.status).toBe(403)
      expect((await create({ "csrf-token": csrfToken })).status).toBe(201)
      expect((await send("POST", `/v1/payments/${payment.paymentId}/cancel`, { headers: { cookie, "csrf-token": csrfToken } })).body.status).toBe("cancelled")
    })

    it("keeps modes and partners apart: a sandbox session sees no live data, another partner's session gets 404", async () => {
      const first = await server.partner()
      const second = await server.partner()
      const liveMerchant = await server.merchant(first.live)
      const livePayment = await server.payment(first.live, liveMerchant)
      const sandbox = await signIn(send, first.sandbox)
      expect((await send("GET", "/v1/payments", { headers: { cookie: sandbox.cookie } })).body.data).toEqual([])
      expect((await send("GET", `/v1/payments/${livePayment.paymentId}`, { headers: { cookie: sandbox.cookie } })).status).toBe(404)
      const other = await signIn(send, second.live)
      expect((await send("GET", `/v1/payments/${livePayment.paymentId}`, { headers: { cookie: other.cookie } })).body.code).toBe("payment_not_found")
      expect((await send("GET", `/v1/merchants/${liveMerchant}`, { headers: { cookie: other.cookie } })).body.code).toBe("merchant_not_found")
      const own = await signIn(send, first.live)
      expect((await send("GET", `/v1/payments/${livePayment.paymentId}`, { headers: { cookie: own.cookie } })).status).toBe(200)
    })

    it("lets Api-Key decide when both are sent, and never opens the merchant API or the gateway", async () => {
      const first = await server.partner()
      const second = await server.partner()
      const merchantId = await server.merchant(first.sandbox)
      const payment = await server.payment(first.sandbox, merchantId)
      const session = await signIn(send, first.sandbox)
      // Api-Key (another partner's) decides: its partner does not see the payment.
      const both = await send("GET", `/v1/payments/${payment.paymentId}`, { apiKey: second.sandbox, headers: { cookie: session.cookie } })
      expect(both.body.code).toBe("payment_not_found")
      // A change with Api-Key needs no CSRF token, whatever cookie comes with it.
      expect((await send("POST", "/v1/merchants", { apiKey: first.sandbox, headers: { cookie: "paygate_session=ended", "idempotency-key": "both-1" }, body: { merchantName: "Both" } })).status).toBe(201)
      const merchantApi = await send("POST", "/v1/merchant/payment", { headers: { cookie: session.cookie, "merchant-id": merchantId, "csrf-token": session.csrfToken }, body: { amount: { unit: "iso4217/USD", value: "100" }, referenceId: "r" } })
      expect(merchantApi.body.code).toBe("missing_merchant_api_key")
      const gateway = await send("GET", `/v1/gateway/payment/${payment.paymentId}`, { headers: { cookie: session.cookie } })
      expect(gateway.body.code).toBe("missing_auth_headers")
      expect((await send("GET", "/v1/payments", {})).body.code).toBe("missing_api_key")
    })

    it("shares the key's rate limit", async () => {
      const partner = await server.partner()
      const limited: Send = server.handler({ rateLimit: { perSecond: 0.001, burst: 2 } })
      const session = await signIn(limited, partner.sandbox)
      expect((await limited("GET", "/v1/payments", { apiKey: partner.sandbox })).status).toBe(200)
      expect((await limited("GET", "/v1/payments", { headers: { cookie: session.cookie } })).status).toBe(200)
      const third = await limited("GET", "/v1/payments", { headers: { cookie: session.cookie } })
      expect(third.body.code).toBe("rate_limited")
      expect((await limited("GET", "/v1/payments", { apiKey: partner.sandbox })).body.code).toBe("rate_limited")
    })
  })

  describe("the end of a session", () => {
    it("signs out with the CSRF token only: 204, cookie cleared, the session refused everywhere after", async () => {
      const partner = await server.partner()
      const { cookie, csrfToken } = await signIn(send, partner.sandbox)
      const noToken = await send("DELETE", "/dashboard/session", { headers: { cookie } })
      expect([noToken.status, noToken.body.code]).toEqual([403, "forbidden"])
      expect((await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": "wrong" } })).status).toBe(403)
      expect((await send("GET", "/dashboard/session", { headers: { cookie } })).status).toBe(200)
      const out = await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": csrfToken } })
      expect(out.status).toBe(204)
      expect(out.headers.get("set-cookie")).toBe("paygate_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
      expect((await send("GET", "/dashboard/session", { headers: { cookie } })).body.code).toBe("unauthorized")
      const api = await send("GET", "/v1/payments", { headers: { cookie } })
      expect(api.status).toBe(401)
      expect(api.body).toEqual({ code: "unauthorized", message: "Your dashboard session has ended; sign in again." })
      expect((await send("DELETE", "/dashboard/session", { headers: { cookie, "csrf-token": csrfToken } })).status).toBe(401)
    })

    it("ends a session unused for DASHBOARD_SESSION_IDLE_SECONDS, and any session DASHBOARD_SESSION_MAX_SECONDS after sign-in", async () => {
      const partner = await server.partner()
      // Seconds apart enough that a busy machine's slow request (up to 2 s) cannot end a session early.
      const idle: Send = server.handler({ config: { DASHBOARD_SESSION_IDLE_SECONDS: "4", DASHBOARD_SESSION_MAX_SECONDS: "60" } })
      const used = await signIn(idle, partner.sandbox)
      const unused = await signIn(idle, partner.sandbox)
      expect(used.response.headers.get("set-cookie")).toContain("Max-Age=60")
      // Used every second, one session outlives the idle time; the other, unused, ends.
      for (let step = 0; step < 5; step++) {
        await sleep(1000)
        expect((await idle("GET", "/v1/payments", { headers: { cookie: used.cookie } })).status).toBe(200)
      }
      expect((await idle("GET", "/dashboard/session", { headers: { cookie: unused.cookie } })).body.code).toBe("unauthorized")

      const short: Send = server.handler({ config: { DASHBOARD_SESSION_IDLE_SECONDS: "60", DASHBOARD_SESSION_MAX_SECONDS: "4" } })
      const session = await signIn(short, partner.sandbox)
      // Taken once the sign-in answered: the server's sign-in time (and so the session's end) is no later.
      const signedInAt = Date.now()
      expect(session.response.body.expiresAt - signedInAt / 1000).toBeLessThanOrEqual(4)
      for (let step = 0; step < 2; step++) {
        await sleep(500)
        expect((await short("GET", "/v1/payments", { headers: { cookie: session.cookie } })).status).toBe(200)
      }
      await sleep(Math.max(0, signedInAt + 4_300 - Date.now()))
      expect((await short("GET", "/v1/payments", { headers: { cookie: session.cookie } })).body.code).toBe("unauthorized")
    })

    it("ends with its key: at once when revoked through the service, and when revoked by another process (whose revocation the credential cache does not hear of)", async () => {
      const partner = await server.partner()
      const here = await signIn(send, partner.sandbox)
      const elsewhere = await signIn(send, partner.live)
      // Both keys are in the credential cache now.
      expect((await send("GET", "/v1/payments", { apiKey: partner.sandbox })).status).toBe(200)
      expect((await send("GET", "/v1/payments", { apiKey: partner.live })).status).toBe(200)

      await server.run(Effect.gen(function*() {
        yield* (yield* CredentialAdmin).revokeKey(yield* Effect.promise(() => keyIdOf(partner, "sandbox")))
      }))
      expect((await send("GET", "/v1/payments", { headers: { cookie: here.cookie } })).body.code).toBe("unauthorized")
      expect((await send("GET", "/dashboard/session", { headers: { cookie: here.cookie } })).body.code).toBe("unauthorized")

      const liveKeyId = await keyIdOf(partner, "live")
      await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE api_keys SET revoked_at = ${Date.now()}::bigint WHERE id = ${liveKeyId}`
      }))
      // The key itself still works from the cache for up to CREDENTIAL_CACHE_SECONDS; its session does not.
      expect((await send("GET", "/v1/payments", { apiKey: partner.live })).status).toBe(200)
      expect((await send("GET", "/v1/payments", { headers: { cookie: elsewhere.cookie } })).body.code).toBe("unauthorized")
    })
  })
})
