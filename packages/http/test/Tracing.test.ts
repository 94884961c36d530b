import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, References } from "effect"
import * as Tracing from "../src/observability/Tracing.ts"

const tracerEnabledWith = (env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* References.TracerEnabled
  }).pipe(Effect.provide(Tracing.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))))

describe("Tracing.layer", () => {
  it.effect("turns spans off when no collector is configured", () =>
    Effect.gen(function*() {
      expect(yield* tracerEnabledWith({})).toBe(false)
      expect(yield* tracerEnabledWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" })).toBe(false)
    }))

  it.effect("keeps spans on with a collector", () =>
    Effect.gen(function*() {
      expect(yield* tracerEnabledWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).toBe(true)
    }).pipe(Effect.scoped))
})
