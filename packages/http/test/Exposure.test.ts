import { describe, expect, it } from "vitest"
import { pglite, useTestServer } from "../../../test/support/TestServer.ts"

// What the service shows to anyone who asks: no operation is 404 with the contract's body (it was
// 400 invalid_params), and GET /metrics asks for METRICS_TOKEN when one is set (it was open).

describe("Requests for no operation", () => {
  const server = useTestServer(pglite)

  it("respond 404 with the contract's {code, message}: the route family's not-found code", async () => {
    const cases: Array<[string, string, string]> = [
      ["GET", "/no/such/route", "payment_not_found"],
      ["GET", "/v1/payments/pay_x/nothing", "payment_not_found"],
      ["POST", "/v1/merchants/mer_x/nothing", "merchant_not_found"],
      ["PUT", "/v1/webhooks/whe_x/nothing", "partner_not_found"],
      ["DELETE", "/v1/api-keys/key_x/nothing", "api_key_not_found"],
      // A method the path does not have.
      ["PUT", "/v1/payments", "payment_not_found"]
    ]
    for (const [method, path, code] of cases) {
      const answer = await server.request(method, path)
      expect({ status: answer.status, body: answer.body }, `${method} ${path}`).toEqual({
        status: 404,
        body: { code, message: `No operation ${method} ${path}; see /docs.` }
      })
      expect(answer.headers.get("content-type")).toContain("application/json")
    }
  })
})

describe("GET /metrics with METRICS_TOKEN", () => {
  const server = useTestServer(pglite)
  const token = "metrics-token-of-this-test"

  it("responds 401 unauthorized without the bearer token, the exposition with it; without METRICS_TOKEN it is open", async () => {
    const guarded = server.handler({ config: { METRICS_TOKEN: token } })
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${token}x`, token, `Basic ${token}`]) {
      const refused = await guarded("GET", "/metrics", { headers: authorization === undefined ? {} : { authorization } })
      expect({ status: refused.status, code: refused.body?.code }, String(authorization)).toEqual({ status: 401, code: "unauthorized" })
      expect(refused.headers.get("www-authenticate")).toBe("Bearer")
      expect(refused.text).not.toContain("paygate_http_requests_total")
    }
    const allowed = await guarded("GET", "/metrics", { headers: { authorization: `Bearer ${token}` } })
    expect(allowed.status).toBe(200)
    expect(allowed.text).toContain("paygate_http_requests_total")
    expect((await server.request("GET", "/metrics")).status).toBe(200)
  })
})
