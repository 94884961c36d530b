/**
 * The API as a process serves it: every route ({@link AppRoutes}) on Node's HTTP server at `PORT`
 * (default 3000), with the rate limiter, SQL readiness and route-labelled request metrics. Needs the
 * application's services (`@paygate/adapters` `Application`); the composition root launches it.
 *
 * @module
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Configuration } from "@paygate/adapters"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { AppRoutes, routerConfig } from "./App.ts"
import { beginDraining } from "./observability/Shutdown.ts"
import { createServer } from "./server/EarlyRequests.ts"
import { RouteMetrics } from "./server/Metrics.ts"
import { RateLimiter } from "./server/RateLimiter.ts"
import { SqlReadiness } from "./server/SqlReadiness.ts"

/** The port the API listens on: `PORT`, default 3000. */
export const port = Configuration.port

/** The API listening on {@link port}; on shutdown it drains (responses close their connections) before it stops. */
export const layer = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = HttpRouter.serve(AppRoutes, { routerConfig, disableLogger: true }).pipe(
      Layer.provide(NodeHttpServer.layer(createServer, { port: yield* port }))
    )
    yield* Layer.build(server)
    // Runs first on SIGTERM (finalizers run in reverse): responses from now on close their connections.
    yield* Effect.addFinalizer(() => beginDraining)
  })
).pipe(
  // Every route of the app labels its request metrics with its template (server/Metrics.ts).
  Layer.provide(RouteMetrics),
  Layer.provide(Layer.mergeAll(RateLimiter.layer, SqlReadiness))
)
