/**
 * The metrics paygate exports in the Prometheus text format (`GET /metrics`, see
 * `server/MetricsEndpoint.ts`), defined once here so every part of the process updates the same series.
 *
 * They live in effect's metric registry (`Metric.MetricRegistry`, one per process unless a context
 * provides its own) and are rendered by `effect/observability`'s `PrometheusMetrics`. Each label
 * combination is its own metric object, cached: effect caches a series key per metric object, so
 * an update is a map lookup, not a key computation.
 *
 * | name | type | labels | what |
 * |---|---|---|---|
 * | `paygate_http_requests_total` | counter | `method`, `route`, `status` | requests responded to |
 * | `paygate_http_request_duration_seconds` | histogram | `method`, `route`, `status` | time to the response |
 * | `paygate_payments` | gauge | `status`, `mode` | payments per status, read from the database at scrape time |
 * | `paygate_outbox_backlog` | gauge | | outbox events not yet processed (scrape time) |
 * | `paygate_outbox_oldest_age_seconds` | gauge | | age of the oldest unprocessed outbox event (scrape time) |
 * | `paygate_scrape_database_ok` | gauge | | 1 when the scrape-time queries answered, else 0 |
 *
 * `GET /metrics` also exports what any paygate process exports (webhook delivery outcomes, chain
 * RPC errors, process memory and CPU), defined in `@paygate/observability` (`ProcessMetrics`) because
 * the worker and the chain adapters feed them.
 *
 * `route` is the route's template (`/v1/merchant/payment/:id/status`), never the raw path, so the
 * label's values are bounded: requests no route responded to are `unmatched` (see `server/MetricsEndpoint.ts`).
 *
 * @module
 */
import { type Context, Metric } from "effect"

/** Histogram boundaries of request durations, in seconds. */
export const durationBoundaries: ReadonlyArray<number> = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10
]

const requestsDescription = "HTTP requests answered, by method, route template and status code."
const durationDescription = "Time from receiving an HTTP request to its response, in seconds."

interface RequestSeries {
  readonly count: Metric.Counter<number>
  readonly duration: Metric.Histogram<number>
}

const requestSeries = new Map<string, RequestSeries>()

/** The counter and histogram of one (method, route, status). */
export const requestSeriesFor = (method: string, route: string, status: number): RequestSeries => {
  const key = `${method} ${status} ${route}`
  let series = requestSeries.get(key)
  if (series === undefined) {
    const attributes = { method, route, status: String(status) }
    series = {
      count: Metric.counter("paygate_http_requests_total", { description: requestsDescription, incremental: true, attributes }),
      duration: Metric.histogram("paygate_http_request_duration_seconds", {
        description: durationDescription,
        boundaries: durationBoundaries,
        attributes
      })
    }
    requestSeries.set(key, series)
  }
  return series
}

/**
 * Records one request responded to in the registry `context` names (the request's). Synchronous: it
 * runs once per request, where two `Metric.update` effects cost several fiber steps and context
 * lookups for two additions.
 */
export const recordRequest = (method: string, route: string, status: number, seconds: number, context: Context.Context<never>) => {
  const series = requestSeriesFor(method, route, status)
  series.count.updateUnsafe(1, context)
  series.duration.updateUnsafe(seconds, context)
}

const gauges = new Map<string, Metric.Gauge<number>>()

const gauge = (name: string, description: string, attributes: Record<string, string> = {}) => {
  const key = `${name} ${JSON.stringify(attributes)}`
  let found = gauges.get(key)
  if (found === undefined) {
    found = Metric.gauge(name, { description, attributes })
    gauges.set(key, found)
  }
  return found
}

/** Payments per status and mode (set at scrape time from the database). */
export const payments = (status: string, mode: string) =>
  gauge(
    "paygate_payments",
    "Payments per status (waiting payments past their expiry count as expired) and mode, read at scrape time.",
    { status, mode }
  )

/** Unprocessed outbox events (set at scrape time). */
export const outboxBacklog = gauge("paygate_outbox_backlog", "Outbox events not yet processed, read at scrape time.")

/** Age of the oldest unprocessed outbox event, 0 when none (set at scrape time). */
export const outboxOldestAge = gauge(
  "paygate_outbox_oldest_age_seconds",
  "Age in seconds of the oldest unprocessed outbox event (0 when there is none), read at scrape time."
)

/** 1 when the last scrape's database queries answered, else 0. */
export const scrapeDatabaseOk = gauge("paygate_scrape_database_ok", "1 when the scrape-time database queries answered, else 0.")
