import { assert, describe, it } from "@effect/vitest"
import { PayoutPolicy } from "@paygate/domain"
import { ConfigProvider, Effect, Layer } from "effect"
import * as ConfiguredPayoutPolicy from "../src/ConfiguredPayoutPolicy.ts"

const policyWith = (env: Record<string, string>) =>
  Effect.provide(Effect.service(PayoutPolicy), ConfiguredPayoutPolicy.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))

describe("PayoutPolicy from configuration", () => {
  it.effect("PAYOUT_MAX_ATTEMPTS sets the attempts before a payout fails; unset, 5; below 1, 1", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* policyWith({ PAYOUT_MAX_ATTEMPTS: "2" }), { maxAttempts: 2 })
      assert.deepStrictEqual(yield* policyWith({}), { maxAttempts: 5 })
      assert.deepStrictEqual(yield* policyWith({ PAYOUT_MAX_ATTEMPTS: "0" }), { maxAttempts: 1 })
    }))

  it.effect("a value that is not a whole number stops the start", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Effect.exit(policyWith({ PAYOUT_MAX_ATTEMPTS: "many" })))._tag, "Failure")
    }))
})
