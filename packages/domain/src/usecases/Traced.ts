import { Effect, References } from "effect"

/**
 * A span named `name` around an effect when tracing is on; when it is off, the effect itself.
 * For use cases and adapters on a request's hot path: `Effect.withSpan` builds a span, captures a
 * stack trace and copies the context on each call even when no tracer reads it, a large share of
 * a cheap request's CPU, and `Effect.fn(name)` does the same per call.
 *
 * @example
 * const find = Effect.fnUntraced(function*(id: string) { ... }, traced("Payments.find"))
 */
export const traced = (name: string) => {
  const span = Effect.withSpan(name)
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => (fiber.getRef(References.TracerEnabled) ? span(self) : self))
}
