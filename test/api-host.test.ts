import { ApiHost } from "@paygate/app"
import { CheckoutSettings } from "@paygate/http"
import { ConfigProvider, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"

const withEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromUnknown(env))

const settingsFrom = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.provide(Effect.map(CheckoutSettings, (s) => ({ ...s })), ApiHost.checkoutSettings.pipe(Layer.provide(withEnv(env))))
  )

describe("CheckoutSettings from the configuration", () => {
  it("defaults to this server's /checkout, /collect and x402 addresses", async () => {
    expect(await settingsFrom({})).toEqual({
      checkoutUrl: "http://localhost:3000/checkout",
      dataCollectionUrl: "http://localhost:3000/collect",
      linkUrl: "http://localhost:3000/l",
      subscribeUrl: "http://localhost:3000/s",
      refundClaimUrl: "http://localhost:3000/r",
      x402Url: "http://localhost:3000/v1/x402/payments"
    })
    expect(await settingsFrom({ PORT: "8080" })).toMatchObject({ dataCollectionUrl: "http://localhost:8080/collect" })
    expect(await settingsFrom({ PUBLIC_URL: "https://pay.example/" })).toEqual({
      checkoutUrl: "https://pay.example/checkout",
      dataCollectionUrl: "https://pay.example/collect",
      linkUrl: "https://pay.example/l",
      subscribeUrl: "https://pay.example/s",
      refundClaimUrl: "https://pay.example/r",
      x402Url: "https://pay.example/v1/x402/payments"
    })
  })

  it("takes CHECKOUT_URL and DATA_COLLECTION_URL as they are, without a trailing slash", async () => {
    expect(await settingsFrom({ CHECKOUT_URL: "https://portal.example/pay/", DATA_COLLECTION_URL: "https://kyc.example/form/" })).toEqual({
      checkoutUrl: "https://portal.example/pay",
      dataCollectionUrl: "https://kyc.example/form",
      linkUrl: "http://localhost:3000/l",
      subscribeUrl: "http://localhost:3000/s",
      refundClaimUrl: "http://localhost:3000/r",
      x402Url: "http://localhost:3000/v1/x402/payments"
    })
  })
})

describe("the API's address", () => {
  it("listens on 127.0.0.1 for the embedded local set-up, on every interface with DATABASE_URL, on HOST when set", async () => {
    const hostWith = (env: Record<string, string>) => Effect.runPromise(ApiHost.host.pipe(Effect.provide(withEnv(env))))
    expect(await hostWith({})).toBe("127.0.0.1")
    expect(await hostWith({ DATABASE_URL: "postgres://db.example/paygate" })).toBeUndefined()
    expect(await hostWith({ HOST: "0.0.0.0" })).toBe("0.0.0.0")
    expect(await hostWith({ HOST: "::1", DATABASE_URL: "postgres://db.example/paygate" })).toBe("::1")
  })
})
