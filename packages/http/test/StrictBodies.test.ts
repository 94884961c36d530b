import { describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer } from "../../../test/support/TestServer.ts"

// Unknown body fields are refused with params_validation naming the field (the published schemas
// say additionalProperties: false); they were dropped, so a request looked accepted and did less
// than it asked. test/http-fuzz.test.ts sends random unknown fields to every operation.

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const wallet = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

forEachDatabase("Strict request bodies", (database) => {
  const server = useTestServer(database)

  const refusedNaming = (answer: { status: number; body: any }, field: string) => {
    expect(answer.status).toBe(400)
    expect(answer.body.code).toBe("params_validation")
    expect(answer.body.message).toContain(`Unknown field ${field}:`)
  }

  it("PATCH /v1/webhooks/{id} with url is refused naming url, and the endpoint keeps its address", async () => {
    const partner = await server.partner()
    const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: "https://hooks.example/a" } })
    expect(created.status).toBe(201)
    const patched = await server.request("PATCH", `/v1/webhooks/${created.body.id}`, {
      apiKey: partner.sandbox,
      body: { url: "https://attacker.example/b" }
    })
    refusedNaming(patched, "url")
    const listed = await server.request("GET", "/v1/webhooks", { apiKey: partner.sandbox })
    expect(listed.body.data.map((e: any) => e.url)).toEqual(["https://hooks.example/a"])
  })

  it("POST /v1/api-keys with mode: live is refused naming mode, and no key is made", async () => {
    const partner = await server.partner()
    const before = (await server.request("GET", "/v1/api-keys", { apiKey: partner.sandbox })).body.data.length
    refusedNaming(await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox, body: { mode: "live" } }), "mode")
    expect((await server.request("GET", "/v1/api-keys", { apiKey: partner.sandbox })).body.data).toHaveLength(before)
    // What clients send to an operation without a body still works: nothing, or an empty object.
    expect((await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox })).status).toBe(201)
    expect((await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox, body: {} })).status).toBe(201)
  })

  it("names a nested unknown field with its path, and a hostile field name quoted", async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.sandbox)
    refusedNaming(
      await server.request("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
        apiKey: partner.sandbox,
        headers: { "idempotency-key": "nested-unknown" },
        body: { settlements: [{ asset: usdc, destination: wallet, memo: "x" }] }
      }),
      "settlements[0].memo"
    )
    refusedNaming(
      await server.request("PATCH", `/v1/merchants/${merchantId}`, { apiKey: partner.sandbox, body: { merchantName: "Shop", "<img src=x>": 1 } }),
      "[\"<img src=x>\"]"
    )
    const payment = await server.request("POST", "/v1/merchant/payment", {
      apiKey: partner.sandbox,
      headers: { "merchant-id": merchantId, "idempotency-key": "unknown-amount-field" },
      body: { amount: { unit: "iso4217/USD", value: "100", currency: "EUR" }, referenceId: "order-1" }
    })
    refusedNaming(payment, "amount.currency")
  })

  it("refuses an unknown field on the wallet-facing gateway too", async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.sandbox)
    const payment = await server.payment(partner.sandbox, merchantId)
    const walletKey = await server.walletKey("sandbox")
    refusedNaming(
      await server.request("POST", `/v1/gateway/payment/${payment.paymentId}/options`, { apiKey: walletKey, body: { accounts: [wallet], includeAll: true } }),
      "includeAll"
    )
  })

  describe("what is not an unknown field stays as it was", () => {
    it("a wrong type is invalid_params; a valid body is accepted", async () => {
      const partner = await server.partner()
      const wrongType = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: 42 } })
      expect(wrongType.status).toBe(400)
      expect(wrongType.body.code).toBe("invalid_params")
      expect((await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: "https://hooks.example/ok" } })).status).toBe(201)
    })
  })
})
