import { createHash } from "node:crypto"
import { beforeAll, describe, expect, it } from "vitest"
import { pglite, type TestPartner, unique, useTestServer } from "../../../test/support/TestServer.ts"

// What the checkout page is handed for its receipt and test-mode badge (the browser side is in
// test/checkout): the payment's mode and order reference in the page, its transaction from
// /checkout/{id}/receipt, without an explorer link on a chain whose configuration names none.
describe("GET /checkout/{id} and /checkout/{id}/receipt", () => {
  const server = useTestServer(pglite)
  let partner: TestPartner
  beforeAll(async () => {
    partner = await server.partner()
  })

  const pageConfig = async (paymentId: string) => {
    const page = await server.request("GET", `/checkout/${paymentId}`)
    expect(page.status).toBe(200)
    const json = /<script type="application\/json" id="portal-config">(.*?)<\/script>/s.exec(page.text)?.[1]
    return JSON.parse(json!) as { mode: string; referenceId: string }
  }

  it("hands the page the payment's mode (the badge is for sandbox only) and its order reference", async () => {
    for (const mode of ["live", "sandbox"] as const) {
      const key = partner[mode]
      const referenceId = unique(`order-${mode}`)
      const payment = await server.payment(key, await server.merchant(key), referenceId)
      expect(await pageConfig(payment.paymentId)).toMatchObject({ mode, referenceId })
    }
  })

  it("answers the transaction once known, with no explorer link when the chain has none configured", async () => {
    const payment = await server.payment(partner.sandbox, await server.merchant(partner.sandbox))
    const before = await server.request("GET", `/checkout/${payment.paymentId}/receipt`)
    expect(before.body).toEqual({ transaction: null, transfers: [], paid: null })
    await server.succeed(payment.paymentId)
    const after = await server.request("GET", `/checkout/${payment.paymentId}/receipt`)
    expect(after.status).toBe(200)
    expect(after.headers.get("cache-control")).toBe("no-store")
    expect(after.body).toEqual({
      transaction: { chainId: "eip155:1", hash: `0x${createHash("sha256").update(payment.paymentId).digest("hex")}`, explorerUrl: null },
      // Confirmed by the wallet, not seen by the chain watcher: no transfer recorded.
      transfers: [],
      // What was paid (the committed token amount; this asset is not configured here, so no symbol) and when.
      paid: {
        amount: expect.objectContaining({ unit: "caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", value: "12500000" }),
        paidAt: expect.any(Number)
      }
    })
  })
})
