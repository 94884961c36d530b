/**
 * `GET /metrics` (Prometheus text format) and the request metrics behind it.
 *
 * - The global request middleware (`RequestMiddleware.ts`) times every request and, once its
 *   response is final (errors rendered), counts it by method, route template and status.
 * - {@link RouteMetrics} (route middleware) tells it the template of the route that matched. Global
 *   middleware runs before routing and cannot see it, so routes must be given this middleware to be
 *   labeled: `App.ts` gives it to the HTTP API's routes, `/metrics` has it, and `ApiServer.ts`
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
import { PaymentStatus, traced } from "@paygate/domain"
import { Context, Effect, Layer, Metric, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
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
 * Sets the database-backed gauges. Payments are counted by status with one `GROUP BY` (an
 * index-only scan of `payments_expiry` on PostgreSQL: its cost grows with the table); the outbox
 * backlog reads the partial index of unprocessed events. A failure sets
 * `paygate_scrape_database_ok` to 0 and leaves the gauges as they were.
 */
const refreshDatabaseGauges = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const now = Date.now()
  const counted = yield* sql<{ readonly status: string; readonly mode: string; readonly payments: string | number }>`
    SELECT CASE WHEN status = 'requires_action' AND expires_at <= ${now}::bigint THEN 'expired' ELSE status END AS status,
      mode, count(*) AS payments
    FROM payments GROUP BY 1, 2`
  const [backlog] = yield* sql<{ readonly events: string | number; readonly oldest: string | number | null }>`
    SELECT count(*) AS events, min(created_at) AS oldest FROM outbox_events WHERE processed_at IS NULL`
  const found = new Map(counted.map((row) => [`${row.status} ${row.mode}`, Number(row.payments)]))
  for (const status of PaymentStatus.literals) {
    for (const mode of modes) yield* Metric.update(MetricSeries.payments(status, mode), found.get(`${status} ${mode}`) ?? 0)
  }
  yield* Metric.update(MetricSeries.outboxBacklog, Number(backlog?.events ?? 0))
  const oldest = backlog?.oldest === null || backlog?.oldest === undefined ? undefined : Number(backlog.oldest)
  yield* Metric.update(MetricSeries.outboxOldestAge, oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000))
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

/** `GET /metrics`; the database it reads is the one of the layer's context. */
export const MetricsRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient
  const token = Option.map(yield* MetricsToken, (secret) => digest(`Bearer ${Redacted.value(secret)}`))
  const handler = scrape.pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
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
