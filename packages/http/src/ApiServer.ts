/**
 * The API as a process serves it: every route ({@link ServiceRoutes}) on Node's HTTP server at the
 * port and address of its `ServerSettings`, hardened (server/Transport.ts), with the rate limiter,
 * the client address resolution and route-labelled request metrics. Needs the application's
 * services, its settings and readiness (the composition root's `Application` and `ApiHost`), which launches it.
 *
 * @module
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, type Scope } from "effect"
import { HttpRouter } from "effect/http"
import { ServiceRoutes, routerConfig } from "./ServiceRoutes.ts"
import { beginDraining } from "./observability/Shutdown.ts"
import { ClientAddress } from "./server/ClientAddress.ts"
import { createServer } from "./server/EarlyRequests.ts"
import { RouteMetrics } from "./server/MetricsEndpoint.ts"
import { RateLimiter } from "./server/RateLimiter.ts"
import { RequestLogLevel } from "./server/RequestMiddleware.ts"
import { harden } from "./server/Transport.ts"
import { ServerSettings } from "./settings/ServerSettings.ts"

// The context requests start from: effect's own services and references (loggers, tracer, clock,
// scope), not paygate's (but the access line's level, which the request middleware reads per request). Each route took its services when it was built (the types say requests
// need none: ServiceRoutes.ts RequestRequirements), and paygate's settings references are read when the use
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
  HttpRouter.Request.Without<Layer.Services<typeof ServiceRoutes>>,
  HttpRouter.HttpRouter | Layer.Success<ReturnType<typeof NodeHttpServer.layer>>
>

/** The API listening on its settings' port; on shutdown it drains (responses close their connections) before it stops. */
export const layer = Layer.effectDiscard(
  Effect.gen(function*() {
    // The routes are built from the application's services; requests start without them (a copy of
    // 60-odd services per request otherwise: server/HandlerGroup.ts).
    const application = yield* Effect.context<Application>()
    const { trusted } = yield* ClientAddress
    const { port, host, maxConnectionsPerClient } = yield* ServerSettings
    const server = HttpRouter.serve(ServiceRoutes.pipe(Layer.provide(Layer.succeedContext(application))), {
      routerConfig,
      disableLogger: true
    }).pipe(Layer.provide(NodeHttpServer.layer(() => createServer((node) => harden(node, { trusted, maxConnectionsPerClient })), {
      port,
      ...(host === undefined ? {} : { host })
    })))
    yield* Layer.build(server).pipe(Effect.updateContext(withoutApplication))
    // Runs first on SIGTERM (finalizers run in reverse): responses from now on close their connections.
    yield* Effect.addFinalizer(() => beginDraining)
  })
).pipe(
  // Every route of the app labels its request metrics with its template (server/MetricsEndpoint.ts).
  Layer.provide(RouteMetrics),
  Layer.provide(Layer.mergeAll(RateLimiter.layer, ClientAddress.layer))
)
