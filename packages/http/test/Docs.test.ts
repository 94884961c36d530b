import { describe, expect, it } from "vitest"
import { useTestServer, pglite } from "../../../test/support/TestServer.ts"

// The documentation is served by us: no CDN, no outside fonts or scripts.
describe("GET /docs and /openapi.json", () => {
  const server = useTestServer(pglite)

  it("serves the API reference with everything inline", async () => {
    const docs = await server.request("GET", "/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toContain("text/html")
    const tags = docs.text.match(/<(script|link|img|iframe)\b[^>]*>/g) ?? []
    for (const tag of tags) expect(tag).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//)
    expect(docs.text).toContain("withDefaultFonts")
  })

  it("publishes OpenAPI 3.1 with every operation", async () => {
    const spec = (await server.request("GET", "/openapi.json")).body
    expect(spec.openapi).toBe("3.1.0")
    const operations = Object.entries(spec.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
    expect(operations).toEqual(expect.arrayContaining([
      "POST /v1/merchant/payment",
      "GET /v1/merchant/payment/{id}/status",
      "GET /v1/gateway/payment/{id}",
      "GET /v1/gateway/payment/{id}/status",
      "POST /v1/gateway/payment/{id}/cancel",
      "POST /v1/gateway/payment/{id}/options",
      "POST /v1/gateway/payment/{id}/fetch",
      "POST /v1/refunds",
      "GET /healthz",
      "GET /readyz"
    ]))
    expect(operations.length).toBeGreaterThanOrEqual(24)
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual(["AppId", "ClientId", "DashboardSession", "MerchantId", "PartnerApiKey", "WalletApiKey"])
    expect(spec.paths["/v1/merchant/payment"].post.security).toEqual([{ PartnerApiKey: [], MerchantId: [] }])
    expect(spec.paths["/v1/gateway/payment/{id}"].get.security).toEqual([{ WalletApiKey: [] }, { AppId: [], ClientId: [] }])
    expect(spec.paths["/v1/payments"].get.security).toEqual([{ PartnerApiKey: [] }, { DashboardSession: [] }])
    expect(spec.paths["/healthz"].get.security).toEqual([])
  })
})
