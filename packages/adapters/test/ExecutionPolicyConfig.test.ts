import { assert, describe, it } from "@effect/vitest"
import { ExecutionPolicy } from "@paygate/domain"
import { ConfigProvider, Effect, Layer } from "effect"
import * as ConfiguredExecutionPolicy from "../src/ConfiguredExecutionPolicy.ts"

const policyWith = (env: Record<string, string>) =>
  Effect.provide(Effect.service(ExecutionPolicy), ConfiguredExecutionPolicy.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))

describe("ExecutionPolicy from configuration", () => {
  it.effect("EXECUTOR_DROPPED_RESEND_MS sets how long a dropped transaction waits; unset, 30 s; below 0, 0", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* policyWith({ EXECUTOR_DROPPED_RESEND_MS: "1234" }), { droppedResendAfterMs: 1234 })
      assert.deepStrictEqual(yield* policyWith({}), { droppedResendAfterMs: 30_000 })
      assert.deepStrictEqual(yield* policyWith({ EXECUTOR_DROPPED_RESEND_MS: "-5" }), { droppedResendAfterMs: 0 })
    }))

  it.effect("a value that is not a whole number stops the start", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(policyWith({ EXECUTOR_DROPPED_RESEND_MS: "soon" }))
      assert.strictEqual(exit._tag, "Failure")
    }))
})
