import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, References } from "effect"
import * as Tracing from "../src/observability/Tracing.ts"

const tracerEnabledWith = (env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* References.TracerEnabled
  }).pipe(Effect.provide(Tracing.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))))

describe("Tracing.layer", () => {
  it.effect("turns spans off when no collector is configured", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* tracerEnabledWith({}))
      assert.isFalse(yield* tracerEnabledWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }))
    }))

  it.effect("keeps spans on with a collector", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* tracerEnabledWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" }))
    }).pipe(Effect.scoped))
})
