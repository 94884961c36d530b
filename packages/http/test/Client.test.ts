import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { beforeAll, expect, it } from "vitest"
import { PaygateClient, type PaygateClientOptions, withIdempotencyKey } from "../src/index.ts"
import { fetchFrom, forEachDatabase, useTestServer, type TestPartner, unique } from "../../../test/support/TestServer.ts"

forEachDatabase("typed client", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner

  beforeAll(async () => {
    partner = await server.partner()
  })

  const withClient = <A, E>(options: Partial<PaygateClientOptions>, body: (client: PaygateClient["Service"]) => Effect.Effect<A, E>) =>
    Effect.runPromise(
      Effect.flatMap(Effect.service(PaygateClient), body).pipe(
        Effect.provide(
          PaygateClient.layerWith({ baseUrl: "http://paygate.test", apiKey: partner.sandbox, ...options }).pipe(
            Layer.provide(FetchHttpClient.layer),
            Layer.provide(fetchFrom(server))
          )
        )
      )
    )

  it("drives merchants, settlements, payments and refunds with decoded answers", async () => {
    const result = await withClient({}, (client) =>
      Effect.gen(function*() {
        const merchant = yield* client.merchants.create({ payload: { merchantName: unique("Client Shop") } }).pipe(
          withIdempotencyKey(unique("client"))
        )
        const registered = yield* client.merchants.registerCrypto({
          params: { merchantId: merchant.merchantId },
          payload: {
            settlements: [{ asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", destination: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }]
          }
        })
        const detail = yield* client.merchants.get({ params: { merchantId: merchant.merchantId } })
        const updated = yield* client.merchants.update({ params: { merchantId: merchant.merchantId }, payload: { iconUrl: null } })
        const payment = yield* client.payments.create({
          payload: { merchantId: merchant.merchantId, amount: { unit: "iso4217/EUR", value: "999" }, referenceId: "client-1" }
        })
        const status = yield* client.payments.status({ params: { id: payment.paymentId } })
        const list = yield* client.payments.list({ query: { status: ["requires_action"], limit: "5" } })
        const byMerchant = yield* client.merchants.payments({ headers: { "merchant-id": merchant.merchantId }, query: {} })
        const deprecated = yield* client.merchants.paymentsByPath({ params: { merchantId: merchant.merchantId }, query: {} })
        const cancelled = yield* client.payments.cancel({ params: { id: payment.paymentId } })
        return { merchant, registered, detail, updated, payment, status, list, byMerchant, deprecated, cancelled }
      }))
    expect(result.merchant.status).toBe("active")
    expect(result.detail.settlements.crypto).toEqual(result.registered.crypto)
    expect(result.updated.iconUrl).toBeNull()
    expect(result.payment).toMatchObject({ status: "requires_action", amount: { unit: "iso4217/EUR", value: "999" }, pollInMs: 2000 })
    expect(result.status).toEqual({ status: "requires_action", isFinal: false, pollInMs: 2000 })
    expect(result.list.data.map((p) => p.paymentId)).toContain(result.payment.paymentId)
    expect(result.byMerchant.data.map((p) => p.paymentId)).toEqual([result.payment.paymentId])
    expect(result.deprecated.body).toEqual(result.byMerchant)
    expect(result.deprecated.headers.deprecation).toBe("true")
    expect(result.cancelled).toMatchObject({ paymentId: result.payment.paymentId, status: "cancelled", cancelledReason: "cancelled_by_merchant" })
  })

  it("decodes contract errors into their error classes", async () => {
    const notFound = await withClient({}, (client) => Effect.flip(client.payments.get({ params: { id: "pay_00000000000000000000000000" } })))
    expect(notFound._tag).toBe("PaymentNotFound")
    expect(notFound.message).toContain("pay_00000000000000000000000000")

    const keyless = await withClient({}, (client) => Effect.flip(client.merchants.create({ payload: { merchantName: "No key" } })))
    expect(keyless._tag).toBe("ParamsValidation")

    const missing = await withClient({ apiKey: undefined }, (client) => Effect.flip(client.refunds.create({ payload: { paymentId: "pay_x" } })))
    expect(missing._tag).toBe("MissingApiKey")

    const notSucceeded = await withClient({}, (client) =>
      Effect.gen(function*() {
        const merchant = yield* client.merchants.create({ payload: { merchantName: unique("Refundless") } }).pipe(withIdempotencyKey(unique("r")))
        const payment = yield* client.payments.create({
          payload: { merchantId: merchant.merchantId, amount: { unit: "iso4217/USD", value: "1" }, referenceId: "r" }
        })
        return yield* Effect.flip(client.refunds.create({ payload: { paymentId: payment.paymentId } }))
      }))
    expect(notSucceeded._tag).toBe("PaymentNotSucceeded")
  })

  it("sends Svc-Version and Merchant-Id from its options", async () => {
    const merchantId = await server.merchant(partner.sandbox)
    const page = await withClient({ merchantId, svcVersion: "2026-02-19.preview" }, (client) => client.merchants.payments({ headers: {}, query: {} }))
    expect(page).toEqual({ data: [], nextCursor: null })
    const invalid = await withClient({ svcVersion: "soon" }, (client) => Effect.flip(client.payments.list({ query: {} })))
    expect(invalid._tag).toBe("InvalidApiVersion")
  })
})
