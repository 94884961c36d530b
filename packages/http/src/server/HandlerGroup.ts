/**
 * `HttpApiBuilder.group` whose requests carry only what they read at request time.
 *
 * `HttpApiBuilder.group` keeps the whole context its layer was built in and merges it into every
 * request's context: with the application's 60-odd services that is a copy of two large maps per
 * request, a large share of what a request allocates. Handlers take their services when the group is built, so requests only
 * need the group's middleware (read when the routes are made): {@link group} builds the handlers
 * with everything and keeps only that for the requests.
 *
 * The route types prove nothing is missing: a handler that reads a service at request time makes
 * `HttpRouter.Request<"Requires", …>` appear in the routes' requirements, which `ServiceRoutes.ts` checks
 * are empty. References with defaults (paygate's settings) are invisible to those types, so the
 * use cases read them when they are built, not per call.
 *
 * @module
 */
import { Context, Effect, Layer, Scope } from "effect"
import { HttpApiBuilder } from "effect/http-api"

/** `HttpApiBuilder.group`, keeping only the group's middleware for its requests. */
export const group: typeof HttpApiBuilder.group = (api, groupIdentifier, build) =>
  Layer.effectContext(
    Effect.gen(function*() {
      const everything = yield* Effect.context<never>()
      const scope = yield* Scope.Scope
      const middleware = new Set<string>()
      const groups = api.groups as unknown as Record<string, { readonly endpoints: Record<string, { readonly middlewares: ReadonlySet<Context.Key<unknown, unknown>> }> }>
      for (const endpoint of Object.values(groups[groupIdentifier]!.endpoints)) {
        for (const key of endpoint.middlewares) middleware.add(key.key)
      }
      const kept = new Map<string, unknown>()
      for (const [key, service] of everything.mapUnsafe) if (middleware.has(key)) kept.set(key, service)
      const built = HttpApiBuilder.group(api, groupIdentifier, (handlers) => {
        const result = build(handlers)
        return (Effect.isEffect(result) ? Effect.provideContext(result, everything) : result) as typeof result
      })
      return yield* Layer.buildWithScope(built, scope).pipe(
        Effect.updateContext(() => Context.add(Context.makeUnsafe(kept), Scope.Scope, scope))
      )
    })
  ) as never
