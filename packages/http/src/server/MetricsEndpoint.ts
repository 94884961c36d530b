/**
 * `GET /metrics` (Prometheus text format) and the request metrics behind it.
 *
 * - The global request middleware (`RequestMiddleware.ts`) times every request and, once its
 *   response is final (errors rendered), counts it by method, route template and status.
 * - {@link RouteMetrics} (route middleware) tells it the template of the route that matched. Global
 *   middleware runs before routing and cannot see it, so routes must be given this middleware to be
 *   labeled: `ServiceRoutes.ts` gives it to the HTTP API's routes, `/metrics` has it, and `ApiServer.ts`
 *   provides it to the whole application (a route middleware in the context a route is registered
 *   in applies to that route), so every route of the running service is labeled. Requests without
 *   a label (no route matched, or a route registered without it) count as `unmatched`.
 * - `GET /metrics` reads the database-backed gauges (payments per status, outbox backlog) and
 *   process gauges at scrape time, then renders effect's registry with `PrometheusMetrics` (with
 *   the webhook outcomes of the worker, when it runs in this process, and the chain RPC errors:
 *   `@paygate/observability` `ProcessMetrics`).
 *
 * With a `MetricsToken` (`METRICS_TOKEN`), the endpoint asks for `Authorization: Bearer <token>` (Prometheus'
 * `authorization` setting sends it) and responds to anything else with `401 unauthorized`; unset, it needs
 * no credential: keep it off the public interface (a reverse proxy that does not forward
 * `/metrics`, or a network policy).
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { ProcessMetrics } from "@paygate/observability"
import { PaymentStatus, StoredCounts, traced } from "@paygate/domain"
import { Context, Effect, Layer, Metric, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Unauthorized } from "../api/HttpErrors.ts"
import * as MetricSeries from "../observability/MetricSeries.ts"
import { MetricsToken } from "../settings/MetricsToken.ts"
import { errorResponse } from "./ErrorResponses.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  refreshDatabaseGauges: traced("MetricsEndpoint.refreshDatabaseGauges")
}

/** The route template of the current request, filled in by {@link RouteMetrics} once it matched. */
export class MatchedRoute extends Context.Service<MatchedRoute, { route: string | undefined }>()("@paygate/http/MatchedRoute") {}

/** Label of requests that no route (given {@link RouteMetrics}) responded to. */
export const unmatchedRoute = "unmatched"

/** Route middleware: labels the request with the matched route's template (see the module documentation). */
export const RouteMetrics = HttpRouter.middleware((httpEffect) =>
  Effect.withFiber((fiber) => {
    const matched = Context.getOrUndefined(fiber.context, MatchedRoute)
    const route = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
    if (matched !== undefined && route !== undefined) matched.route = route.route.path
    return httpEffect
  })
).layer

const modes = ["live", "sandbox"] as const

/**
 * Sets the database-backed gauges from the stored counts (`StoredCounts`). A failure sets
 * `paygate_scrape_database_ok` to 0 and leaves the gauges as they were.
 */
const refreshDatabaseGauges = Effect.gen(function*() {
  const counts = yield* StoredCounts
  const now = Date.now()
  const counted = yield* counts.payments(now)
  const backlog = yield* counts.outboxBacklog
  const found = new Map(counted.map((row) => [`${row.status} ${row.mode}`, row.count]))
  for (const status of PaymentStatus.literals) {
    for (const mode of modes) yield* Metric.update(MetricSeries.payments(status, mode), found.get(`${status} ${mode}`) ?? 0)
  }
  yield* Metric.update(MetricSeries.outboxBacklog, backlog.unprocessed)
  const oldest = backlog.oldestCreatedAt
  yield* Metric.update(MetricSeries.outboxOldestAge, oldest === null ? 0 : Math.max(0, (now - oldest) / 1000))
  yield* Metric.update(MetricSeries.scrapeDatabaseOk, 1)
}).pipe(
  Effect.timeout("5 seconds"),
  Effect.catchCause((cause) =>
    Effect.logWarning("metrics: the scrape-time database queries failed", cause).pipe(
      Effect.andThen(Metric.update(MetricSeries.scrapeDatabaseOk, 0))
    )
  ),
  spans.refreshDatabaseGauges
)

/** The text `GET /metrics` responds with: scrape-time gauges refreshed, then the whole registry. */
export const scrape = Effect.andThen(refreshDatabaseGauges, ProcessMetrics.render)

/** Prometheus text exposition format, version 0.0.4. */
export const contentType = ProcessMetrics.contentType

const digest = (text: string) => createHash("sha256").update(text).digest()

const refused = errorResponse(new Unauthorized({ message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>." }), {
  "www-authenticate": "Bearer"
})

/** `GET /metrics`; the counts it reads are the layer context's `StoredCounts`. */
export const MetricsRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const counts = yield* StoredCounts
  const token = Option.map(yield* MetricsToken, (secret) => digest(`Bearer ${Redacted.value(secret)}`))
  const handler = scrape.pipe(
    Effect.provideService(StoredCounts, counts),
    Effect.map((body) => HttpServerResponse.text(body, { contentType, headers: { "cache-control": "no-store" } }))
  )
  // Compared as digests: in constant time, whatever the length of what was sent.
  const allowed = (request: HttpServerRequest.HttpServerRequest) =>
    Option.isNone(token) || timingSafeEqual(digest(request.headers.authorization ?? ""), token.value)
  yield* router.add(
    "GET",
    "/metrics",
    Effect.gen(function*() {
      return allowed(yield* HttpServerRequest.HttpServerRequest) ? yield* handler : refused
    })
  )
})).pipe(Layer.provide(RouteMetrics))

/**
 * Everything `/metrics` needs, to merge into the application's routes: the route and the series
 * that read 0 before their first event (requests are counted by `RequestMiddleware.ts`).
 */
export const MetricsLive = Layer.mergeAll(MetricsRoute, Layer.effectDiscard(ProcessMetrics.registerInitialSeries))
