/**
 * The published x402 client and middleware buy from paygate on a local chain: a resource server
 * built with `@x402/express` whose facilitator is paygate sells `GET /weather`, a client built with
 * `@x402/fetch` and a viem account buys it. The merchant sees the payment succeeded (partner API),
 * its `payment.succeeded` event with the payer and the resource URL, and one transfer on chain.
 */
import { decodePaymentResponseHeader } from "@x402/fetch"
import { type Hex, parseEventLogs, erc20Abi } from "viem"
import { expect, it } from "vitest"
import { outboxEventsOf } from "../support/OutboxEvents.ts"
import { forEachDatabase } from "../support/TestServer.ts"
import { price, x402World } from "./X402World.ts"

forEachDatabase("x402: the published client and middleware buy through paygate (anvil)", (database) => {
  const world = x402World(database)

  it("sells a resource: one transfer to paygate, a succeeded payment of the merchant with payer, resource and webhook event", async () => {
    const shop = await world.resourceServer()
    try {
      const buyer = await world.buyer()
      const collection = world.chain().chain.collectionAddress as Hex
      const before = await world.chain().balanceOf(collection)
      const pay = world.payingFetch(buyer)

      const response = await pay(`${shop.url}/weather`)
      expect(response.status, await response.clone().text()).toBe(200)
      expect(await response.json()).toEqual({ weather: "sunny" })
      const settled = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!)
      expect(settled.success).toBe(true)
      expect(settled.network).toBe(world.network())
      expect(settled.payer?.toLowerCase()).toBe(buyer.address.toLowerCase())

      // On chain: exactly one transfer of the price from the buyer to paygate's collection address.
      expect(await world.chain().balanceOf(collection)).toBe(before + price)
      expect(await world.chain().balanceOf(buyer.address)).toBe(1_000_000n - price)
      const receipt = await world.chain().client.getTransactionReceipt({ hash: settled.transaction as Hex })
      const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" })
      expect(transfers.map((t) => [t.args.from.toLowerCase(), t.args.to.toLowerCase(), t.args.value])).toEqual([
        [buyer.address.toLowerCase(), collection.toLowerCase(), price]
      ])

      // The merchant's payment, in the partner API.
      const listed = await world.server.request("GET", `/v1/payments?merchantId=${world.merchantId()}`, { apiKey: world.sandboxKey() })
      expect(listed.status).toBe(200)
      const payment = listed.body.data.find((p: any) => p.referenceId === `${shop.url}/weather`)
      expect(payment, JSON.stringify(listed.body)).toBeDefined()
      expect(payment.status).toBe("succeeded")
      expect(payment.buyer.accountCaip10.toLowerCase()).toBe(`${world.network()}:${buyer.address}`.toLowerCase())
      expect(payment.transaction.hash.toLowerCase()).toBe((settled.transaction as string).toLowerCase())
      const events = await outboxEventsOf(world.server, payment.paymentId)
      expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
      const succeeded = JSON.stringify(events.at(-1)!.payload).toLowerCase()
      expect(succeeded).toContain(buyer.address.toLowerCase())
      expect(succeeded).toContain((settled.transaction as string).toLowerCase())
    } finally {
      await shop.close()
    }
  }, 120_000)

  it("pays a merchant payment at its x402 address: 402 with its amount, then its status once paid", async () => {
    const buyer = await world.buyer(2_000_000n)
    const collection = world.chain().chain.collectionAddress as Hex
    const before = await world.chain().balanceOf(collection)
    const created = await world.server.request("POST", "/v1/merchant/payment", {
      apiKey: world.sandboxKey(),
      headers: { "merchant-id": world.merchantId(), "idempotency-key": `x402-${Date.now()}` },
      body: { amount: { unit: "iso4217/USD", value: "125" }, referenceId: "order-x402" }
    })
    expect(created.status, created.text).toBe(200)
    const path = new URL(created.body.x402Url).pathname
    expect(path).toBe(`/v1/x402/payments/${created.body.paymentId}`)
    const address = `${world.paygate().url}${path}`

    const unpaid = await fetch(address)
    expect(unpaid.status).toBe(402)
    const required = JSON.parse(Buffer.from(unpaid.headers.get("payment-required")!, "base64").toString("utf8"))
    expect(required.accepts).toEqual([{
      scheme: "exact",
      network: world.network(),
      asset: world.token().address,
      amount: "1250000",
      payTo: collection,
      maxTimeoutSeconds: expect.any(Number),
      extra: { name: world.token().name, version: world.token().version }
    }])

    const paid = await world.payingFetch(buyer)(address)
    expect(paid.status, await paid.clone().text()).toBe(200)
    expect(await paid.json()).toEqual({ status: "succeeded", isFinal: true, pollInMs: null })
    expect(decodePaymentResponseHeader(paid.headers.get("payment-response")!).success).toBe(true)
    expect(await world.chain().balanceOf(collection)).toBe(before + 1_250_000n)

    const status = await world.server.request("GET", `/v1/merchant/payment/${created.body.paymentId}/status`, {
      apiKey: world.sandboxKey(),
      headers: { "merchant-id": world.merchantId() }
    })
    expect(status.body).toEqual({ status: "succeeded", isFinal: true })
    // Paid: the address answers the resource, and a second payment is never taken.
    const again = await world.payingFetch(buyer)(address)
    expect(again.status).toBe(200)
    expect(await world.chain().balanceOf(buyer.address)).toBe(2_000_000n - 1_250_000n)
  }, 120_000)
})
