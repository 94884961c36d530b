import { Effect, References } from "effect"

/**
 * A span named `name` around an effect when tracing is on; when it is off, the effect itself.
 * For use cases on a request's hot path: a span costs each call two context copies even when no
 * tracer reads it, and `Effect.fn(name)` also captures a stack trace per call.
 *
 * @example
 * const find = Effect.fnUntraced(function*(id: string) { ... }, traced("Payments.find"))
 */
export const traced = (name: string) => {
  const span = Effect.withSpan(name)
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => (fiber.getRef(References.TracerEnabled) ? span(self) : self))
}
