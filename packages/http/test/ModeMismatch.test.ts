import { beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../../test/support/ExpectError.ts"
import { pglite, type TestPartner, type TestResponse, useTestServer } from "../../../test/support/TestServer.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const wallet = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const order = { amount: { unit: "iso4217/USD", value: "100" }, referenceId: "mode-mix" }

/**
 * A key used with a merchant of the partner's other mode: still `merchant_not_found` (data stays
 * partitioned by mode), with a message that says which mode each one is. Another partner's
 * merchant is answered as a missing one, whatever its mode: nothing confirms it exists.
 */
describe("a key and a merchant of different modes", () => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "true"
  const server = useTestServer(pglite)
  let a: TestPartner
  let b: TestPartner
  let sandboxMerchant: string
  let liveMerchant: string

  beforeAll(async () => {
    a = await server.partner()
    b = await server.partner()
    sandboxMerchant = await server.merchant(a.sandbox)
    liveMerchant = await server.merchant(a.live)
  })

  // Every request that names a merchant, as `apiKey` makes it.
  const naming = (apiKey: string, merchantId: string): Record<string, () => Promise<TestResponse>> => {
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => server.request(method, path, { apiKey, body, headers })
    return {
      merchantApi: () => call("POST", "/v1/merchant/payment", order, { "merchant-id": merchantId }),
      merchantPayments: () => call("GET", "/v1/merchants/payments", undefined, { "merchant-id": merchantId }),
      createPayment: () => call("POST", "/v1/payments", { merchantId, ...order }),
      merchant: () => call("GET", `/v1/merchants/${merchantId}`),
      update: () => call("PATCH", `/v1/merchants/${merchantId}`, { merchantName: "Renamed" }),
      settlements: () => call("GET", `/v1/merchants/${merchantId}/settlements`),
      register: () => call("POST", `/v1/merchants/${merchantId}/settlements/crypto`, { settlements: [{ asset: usdc, destination: wallet }] }),
      webhook: () => call("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook", merchantId })
    }
  }

  const expectMessage = async (apiKey: string, merchantId: string, message: string) => {
    for (const [name, request] of Object.entries(naming(apiKey, merchantId))) {
      const response = await request()
      expectError(response, 404, "merchant_not_found")
      expect(response.body.message, name).toBe(message)
    }
  }

  it("a live key with the partner's sandbox merchant is told so", async () => {
    await expectMessage(a.live, sandboxMerchant, `${sandboxMerchant} is a sandbox merchant; this is a live key. Use a sandbox key (sk_test_…) for it, or a live merchant with this key.`)
  })

  it("a sandbox key with the partner's live merchant is told so", async () => {
    await expectMessage(a.sandbox, liveMerchant, `${liveMerchant} is a live merchant; this is a sandbox key. Use a live key (sk_live_…) for it, or a sandbox merchant with this key.`)
  })

  it("another partner's merchant, of either mode, is only missing", async () => {
    for (const key of [b.live, b.sandbox]) {
      for (const merchant of [sandboxMerchant, liveMerchant]) await expectMessage(key, merchant, `No merchant ${merchant}.`)
    }
    await expectMessage(a.live, "mer_unknown", "No merchant mer_unknown.")
  })

  it("the other mode's merchant is still not used: nothing was created or changed", async () => {
    const sandboxView = await server.request("GET", `/v1/merchants/${sandboxMerchant}`, { apiKey: a.sandbox })
    expect(sandboxView.body.merchantName).not.toBe("Renamed")
    expect(sandboxView.body.settlements.crypto).toEqual([])
    const payments = await server.request("GET", "/v1/payments", { apiKey: a.sandbox })
    expect(payments.body.data).toEqual([])
  })
})
