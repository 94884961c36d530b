/**
 * The API as a process serves it: every route ({@link AppRoutes}) on Node's HTTP server at `PORT`
 * (default 3000) on `HOST` (default: every interface, or 127.0.0.1 for the embedded local set-up,
 * whose sandbox nobody else should reach), hardened (server/Transport.ts), with the rate limiter,
 * the client address resolution, SQL readiness and route-labelled request metrics. Needs the
 * application's services (`@paygate/adapters` `Application`); the composition root launches it.
 *
 * @module
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Configuration } from "@paygate/adapters"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { HttpRouter } from "effect/http"
import { AppRoutes, routerConfig } from "./App.ts"
import { beginDraining } from "./observability/Shutdown.ts"
import { ClientAddress } from "./server/ClientAddress.ts"
import { createServer } from "./server/EarlyRequests.ts"
import { RouteMetrics } from "./server/MetricsEndpoint.ts"
import { RateLimiter } from "./server/RateLimiter.ts"
import { RequestLogLevel } from "./server/RequestMiddleware.ts"
import { SqlReadiness } from "./server/SqlReadiness.ts"
import { harden } from "./server/Transport.ts"

/** The port the API listens on: `PORT`, default 3000. */
export const port = Configuration.port

/** The address the API listens on: `HOST`; unset, 127.0.0.1 on the embedded database, else every interface. */
export const host = Effect.gen(function*() {
  const configured = yield* Configuration.host
  if (Option.isSome(configured)) return configured.value.trim()
  return Option.isNone(yield* Configuration.databaseUrl) ? "127.0.0.1" : undefined
})

// The context requests start from: effect's own services and references (loggers, tracer, clock,
// scope), not paygate's (but the access line's level, which the request middleware reads per request). Each route took its services when it was built (the types say requests
// need none: App.ts RequestRequirements), and paygate's settings references are read when the use
// cases are built too (a reference read per request would silently see its default here).
//
// Up to 16 services are added on top of it before it is copied flat (effect's default is 8): a
// request adds about a dozen (the Node server and HttpEffect 4, RequestMiddleware 4, the router 2,
// the authentication 2) before HttpApiBuilder merges the route's context into it, which makes a flat
// copy anyway. At 8 the router's first addition copied the request's context once more.
const withoutApplication = (context: Context.Context<never>) => {
  const kept = new Map<string, unknown>()
  for (const [key, service] of context.mapUnsafe) if (!key.startsWith("@paygate/") || key === RequestLogLevel.key) kept.set(key, service)
  return Context.makeUnsafe<Scope.Scope>(kept, { maxDepth: 16 })
}

/** What the routes are built from: their requirements but the router's and the Node server's. */
type Application = Exclude<
  HttpRouter.Request.Without<Layer.Services<typeof AppRoutes>>,
  HttpRouter.HttpRouter | Layer.Success<ReturnType<typeof NodeHttpServer.layer>>
>

/** The API listening on {@link port}; on shutdown it drains (responses close their connections) before it stops. */
export const layer = Layer.effectDiscard(
  Effect.gen(function*() {
    // The routes are built from the application's services; requests start without them (a copy of
    // 60-odd services per request otherwise: server/HandlerGroup.ts).
    const application = yield* Effect.context<Application>()
    const { trusted } = yield* ClientAddress
    const maxConnectionsPerClient = yield* Configuration.maxConnectionsPerClient
    const listenOn = yield* host
    const server = HttpRouter.serve(AppRoutes.pipe(Layer.provide(Layer.succeedContext(application))), {
      routerConfig,
      disableLogger: true
    }).pipe(Layer.provide(NodeHttpServer.layer(() => createServer((node) => harden(node, { trusted, maxConnectionsPerClient })), {
      port: yield* port,
      ...(listenOn === undefined ? {} : { host: listenOn })
    })))
    yield* Layer.build(server).pipe(Effect.updateContext(withoutApplication))
    // Runs first on SIGTERM (finalizers run in reverse): responses from now on close their connections.
    yield* Effect.addFinalizer(() => beginDraining)
  })
).pipe(
  // Every route of the app labels its request metrics with its template (server/MetricsEndpoint.ts).
  Layer.provide(RouteMetrics),
  Layer.provide(Layer.mergeAll(RateLimiter.layer, SqlReadiness, ClientAddress.layer))
)
