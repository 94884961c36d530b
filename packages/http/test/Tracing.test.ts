import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, References } from "effect"
import * as Tracing from "../src/observability/Tracing.ts"
import { OtlpSettings } from "../src/settings/OtlpSettings.ts"

const unset: OtlpSettings["Service"] = {
  disabled: false,
  tracesEndpoint: Option.none(),
  endpoint: Option.none(),
  serviceName: "paygate",
  headers: Option.none(),
  resourceAttributes: Option.none()
}

const tracerEnabledWith = (settings: Partial<OtlpSettings["Service"]>) =>
  Effect.gen(function*() {
    return yield* References.TracerEnabled
  }).pipe(Effect.provide(Tracing.layer.pipe(Layer.provide(Layer.succeed(OtlpSettings, { ...unset, ...settings })))))

describe("Tracing.layer", () => {
  it.effect("turns spans off when no collector is configured", () =>
    Effect.gen(function*() {
      expect(yield* tracerEnabledWith({})).toBe(false)
      expect(yield* tracerEnabledWith({ endpoint: Option.some("http://127.0.0.1:4318"), disabled: true })).toBe(false)
    }))

  it.effect("keeps spans on with a collector", () =>
    Effect.gen(function*() {
      expect(yield* tracerEnabledWith({ endpoint: Option.some("http://127.0.0.1:1") })).toBe(true)
    }).pipe(Effect.scoped))
})
