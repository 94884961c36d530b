import { assert, describe, it } from "@effect/vitest"
import { PaymentSettings } from "@paygate/domain"
import { ConfigProvider, Effect, Layer } from "effect"
import * as ConfiguredPaymentSettings from "../src/ConfiguredPaymentSettings.ts"

const settingsWith = (env: Record<string, string>) =>
  Effect.provide(
    Effect.service(PaymentSettings),
    ConfiguredPaymentSettings.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))
  )

describe("PaymentSettings from configuration", () => {
  it.effect("PAYMENT_LIFETIME_SECONDS sets the payment lifetime; unset, 15 minutes; below a minute, a minute; quotes keep 5 minutes", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* settingsWith({ PAYMENT_LIFETIME_SECONDS: "120" }), { lifetimeSeconds: 120, quoteTtlSeconds: 300 })
      assert.deepStrictEqual(yield* settingsWith({}), { lifetimeSeconds: 900, quoteTtlSeconds: 300 })
      assert.deepStrictEqual(yield* settingsWith({ PAYMENT_LIFETIME_SECONDS: "5" }), { lifetimeSeconds: 60, quoteTtlSeconds: 300 })
    }))

  it.effect("a value that is not a whole number stops the start", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(settingsWith({ PAYMENT_LIFETIME_SECONDS: "a while" }))
      assert.strictEqual(exit._tag, "Failure")
    }))
})
