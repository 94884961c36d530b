/**
 * `DeliveryQueue` on SQL (`webhook_deliveries`, reading `outbox_events` and `webhook_endpoints`).
 *
 * - `fanOut` inserts the deliveries of a batch of events and marks the events processed in one
 *   transaction; the unique index `webhook_deliveries_once` turns a repeated fan-out (a dispatcher
 *   whose outbox lease ran out) into no new rows. Every few thousand deliveries created, the table
 *   is analyzed, so that claims during a backlog are planned for it.
 * - `claim` leases due deliveries of active endpoints, oldest due first, at most `perEndpoint` per
 *   endpoint (less what the caller has in flight), in one statement: the deliveries it picks are
 *   locked with `FOR UPDATE SKIP LOCKED` (concurrent claimers skip each other's rows instead of
 *   waiting) and get `lease_until = now + lease`. A deliverer that dies loses its lease and the
 *   delivery is due again (at-least-once).
 * - `record` is a compare-and-set on `attempts`: an attempt recorded by a deliverer whose lease
 *   ran out, after another deliverer's, changes nothing. The attempt's request headers and the
 *   receiver's response are written by the same statement as its outcome.
 *
 * "Now" is the Effect `Clock`, in Unix milliseconds.
 *
 * @module
 */
import {
  type AttemptRecord,
  type ClaimOptions,
  type Cursor,
  type DeliveryId,
  DeliveryQueue,
  type EventId,
  type FanOut,
  type Mode,
  type PartnerId,
  type PaymentId,
  type WebhookEndpoint,
  type WebhookEndpointId,
  type WebhookEvent,
  traced
} from "@paygate/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { identity } from "effect/Function"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import { readableEvent, unreadableEventHoldMillis } from "../internal/PaymentRow.ts"
import { toInt } from "../internal/Rows.ts"
import { deliveryColumns, deliveryFromRow, exchangeValues } from "./DeliveryRows.ts"
import { WebhookSecretCipher } from "./SecretCipher.ts"
import { endpointFromRow } from "./EndpointRows.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  fanOut: traced("SqlDeliveryQueue.fanOut"),
  claim: traced("SqlDeliveryQueue.claim"),
  record: traced("SqlDeliveryQueue.record"),
  recordMany: traced("SqlDeliveryQueue.recordMany"),
  release: traced("SqlDeliveryQueue.release"),
  listForEndpoint: traced("SqlDeliveryQueue.listForEndpoint"),
  listEvents: traced("SqlDeliveryQueue.listEvents"),
  listForPayment: traced("SqlDeliveryQueue.listForPayment"),
  findEvent: traced("SqlDeliveryQueue.findEvent"),
  redeliver: traced("SqlDeliveryQueue.redeliver")
}

/** A new delivery id: `dlv_` + time (base 36) + 80 random bits (hex). */
export const newDeliveryId = (now: number): DeliveryId =>
  `dlv_${now.toString(36).padStart(9, "0")}${randomBytes(10).toString("hex")}` as DeliveryId

// Outbox event ids and delivery ids, and lists of ids, never carry anything but [A-Za-z0-9_]: safe as array text.
const textArray = (ids: ReadonlyArray<string>) => `{${ids.join(",")}}`

/** Builds the queue over the `SqlClient` and cipher in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* WebhookSecretCipher
  const endpointOf = endpointFromRow(cipher)
  const select = sql.literal(deliveryColumns())

  // Inserts one delivery per (event, endpoint) pair whose endpoint is active, due `now`, in one
  // statement; fan-out rows skip pairs that already have one.
  const insertDeliveries = (
    pairs: ReadonlyArray<readonly [WebhookEvent, WebhookEndpointId]>,
    redelivery: boolean,
    now: number
  ): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError> => {
    if (pairs.length === 0) return Effect.succeed([])
    const rows = pairs.map(([event, endpointId]) =>
      sql`(${newDeliveryId(now)}::text, ${event.id}::text, ${event.type}::text, ${endpointId}::text)`
    )
    const conflict = redelivery ? sql`` : sql`ON CONFLICT (event_id, endpoint_id) WHERE NOT redelivery DO NOTHING`
    return sql`INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint_id, redelivery, status, attempts,
          next_attempt_at, created_at, updated_at)
        SELECT v.id, v.event_id, v.event_type, e.id, ${redelivery}, 'pending', 0, ${now}::bigint, ${now}::bigint, ${now}::bigint
        FROM (VALUES ${sql.csv(rows)}) AS v (id, event_id, event_type, endpoint_id)
        JOIN webhook_endpoints e ON e.id = v.endpoint_id AND e.status = 'active' AND e.deleted_at IS NULL
        ${conflict}
        RETURNING ${select}`
  }

  // Statements stay well under the protocol's 65,535 parameters.
  const chunkSize = 2_000

  // The claim's plan depends on how many deliveries the planner thinks pending. Statistics taken
  // before a backlog (an empty table, or millions of delivered rows) make it walk every pending
  // row per claim; autovacuum analyzes only after a tenth of the table changed. So the table is
  // analyzed after every `analyzeEvery` deliveries this process created (skipped while another
  // ANALYZE or VACUUM holds it: one that runs already refreshes the statistics).
  let createdSinceAnalyze = 0
  const analyzeEvery = 5_000
  const analyzeIfGrown = (created: number) => {
    createdSinceAnalyze += created
    if (createdSinceAnalyze < analyzeEvery) return Effect.void
    createdSinceAnalyze = 0
    // The fan-out has committed: a failed ANALYZE only leaves the statistics as they were.
    return sql`ANALYZE (SKIP_LOCKED) webhook_deliveries`.pipe(
      Effect.asVoid,
      Effect.catchCause((cause) => Effect.logWarning("webhook deliveries: ANALYZE failed; the statistics stay as they were", cause))
    )
  }

  const fanOut = (items: ReadonlyArray<FanOut>) =>
    Effect.gen(function*() {
      if (items.length === 0) return 0
      const now = yield* Clock.currentTimeMillis
      const pairs = items.flatMap(({ endpoints, event }) => endpoints.map((endpoint) => [event, endpoint] as const))
      let created = 0
      for (let i = 0; i < pairs.length; i += chunkSize) {
        created += (yield* insertDeliveries(pairs.slice(i, i + chunkSize), false, now)).length
      }
      yield* sql`UPDATE outbox_events SET processed_at = ${now}::bigint, lease_until = NULL
        WHERE id = ANY(${textArray(items.map((i) => i.event.id))}::text[]) AND processed_at IS NULL`
      return created
    }).pipe(
      sql.withTransaction,
      Effect.tap(analyzeIfGrown),
      Effect.orDie,
      spans.fanOut
    )

  // Claims decode the same endpoints (and, fanned out, the same events) over and over: both are
  // immutable per stored form, so decoded values are kept (bounded) by that form.
  const endpoints = new Map<string, WebhookEndpoint>()
  const events = new Map<string, WebhookEvent>()
  const remember = <A>(cache: Map<string, A>, key: string, value: A) => {
    if (cache.size >= 2_000) cache.clear()
    cache.set(key, value)
    return value
  }
  const cachedEndpoint = (row: Record<string, unknown>, columns: Record<string, unknown>) => {
    const key = `${row.endpoint_id}|${row.endpoint_status}|${row.url}|${JSON.stringify(row.events)}|${row.secret_ciphertext}|${row.api_version}`
    const known = endpoints.get(key)
    return known !== undefined ? Effect.succeed(known) : Effect.map(endpointOf(columns), (e) => remember(endpoints, key, e))
  }
  const cachedEvent = (id: string, payload: unknown): Option.Option<WebhookEvent> => {
    const known = events.get(id)
    if (known !== undefined) return Option.some(known)
    return Option.map(readableEvent(payload), (event) => remember(events, id, event))
  }

  const claim = (options: ClaimOptions) =>
    Effect.gen(function*() {
      if (options.limit <= 0) return []
      const now = yield* Clock.currentTimeMillis
      // Endpoints at their limit are skipped; the others' slots in flight count against it.
      const busy = [...(options.inFlight ?? [])].filter(([, n]) => n > 0)
      const full = textArray(busy.filter(([, n]) => n >= options.perEndpoint).map(([id]) => id))
      const partly = busy.filter(([, n]) => n < options.perEndpoint)
      // Candidates are scanned beyond `limit` so that one endpoint's backlog cannot hide others'.
      // Only the picked ones are locked (`SKIP LOCKED`, due and unleased checked again): a row
      // lock is a write, and locking the whole scan cost more than the rest of the claim. A
      // concurrent claimer that picked the same rows gets fewer; it claims again soon. They are
      // found by id as an array: joined, a planner that thinks the pending rows few (statistics
      // taken before a backlog) scanned them all once per picked row.
      const scan = Math.min(options.limit * 4, 2000)
      const rows = yield* sql`
        WITH candidates AS (
          SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}::bigint
            AND (d.lease_until IS NULL OR d.lease_until <= ${now}::bigint)
            AND d.endpoint_id <> ALL(${full}::text[])
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${scan}
        ), busy AS (
          SELECT * FROM unnest(${textArray(partly.map(([id]) => id))}::text[], ${`{${partly.map(([, n]) => n).join(",")}}`}::int[])
            AS b (endpoint_id, n)
        ), ranked AS (
          SELECT c.id, c.next_attempt_at,
            row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) + coalesce(b.n, 0) AS n
          FROM candidates c LEFT JOIN busy b ON b.endpoint_id = c.endpoint_id
        ), picked AS (
          SELECT id FROM ranked WHERE n <= ${options.perEndpoint} ORDER BY next_attempt_at, id LIMIT ${options.limit}
        ), locked AS MATERIALIZED (
          SELECT d.id FROM webhook_deliveries d
          WHERE d.id = ANY(ARRAY(SELECT id FROM picked))
            AND d.status = 'pending' AND d.next_attempt_at <= ${now}::bigint
            AND (d.lease_until IS NULL OR d.lease_until <= ${now}::bigint)
          FOR UPDATE OF d SKIP LOCKED
        )
        UPDATE webhook_deliveries AS d SET lease_until = ${now + options.leaseMillis}::bigint
        FROM locked, outbox_events o, webhook_endpoints e
        WHERE d.id = locked.id AND o.id = d.event_id AND e.id = d.endpoint_id
          AND e.status = 'active' AND e.deleted_at IS NULL
        RETURNING ${sql.literal(deliveryColumns("d"))}, o.payload, e.partner_id, e.mode, e.url, e.events, e.merchant_id, e.secret_ciphertext, e.status AS endpoint_status,
          e.api_version, e.created_at AS endpoint_created_at`
      // A delivery of an event this version cannot read (a newer version's) is set aside, not attempted.
      const decoded = rows.map((row) => ({ row, event: cachedEvent(String(row.event_id), row.payload) }))
      const unreadable = decoded.flatMap(({ event, row }) => (Option.isNone(event) ? [row] : []))
      if (unreadable.length > 0) {
        yield* sql`UPDATE webhook_deliveries SET lease_until = ${now + unreadableEventHoldMillis}::bigint
          WHERE id = ANY(${textArray(unreadable.map((row) => String(row.id)))}::text[])`
        yield* Effect.logError(
          `webhook deliveries: this version cannot read the events of ${unreadable.map((row) => `${row.id} (${row.event_type})`).join(", ")}; set aside for ${unreadableEventHoldMillis / 60_000} minutes, for a version that can`
        )
      }
      const readable = decoded.flatMap(({ event, row }) => (Option.isSome(event) ? [{ row, event: event.value }] : []))
      const claimed = yield* Effect.forEach(readable, ({ event, row }) =>
        Effect.map(
          cachedEndpoint(row, {
            id: row.endpoint_id,
            partner_id: row.partner_id,
            mode: row.mode,
            url: row.url,
            events: row.events,
            merchant_id: row.merchant_id,
            secret_ciphertext: row.secret_ciphertext,
            status: row.endpoint_status,
            api_version: row.api_version,
            created_at: row.endpoint_created_at
          }),
          (endpoint) => ({ delivery: deliveryFromRow(row), event, endpoint })
        ))
      // UPDATE ... RETURNING has no order: oldest due first.
      return claimed.sort((a, b) =>
        (a.delivery.nextAttemptAt ?? 0) - (b.delivery.nextAttemptAt ?? 0) || (a.delivery.id < b.delivery.id ? -1 : 1)
      )
    }).pipe(Effect.orDie, spans.claim)

  // One statement, unless the endpoint is to be disabled too (then one transaction).
  const record = (attempt: AttemptRecord) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const exchange = exchangeValues(attempt)
      const rows = yield* sql`UPDATE webhook_deliveries SET attempts = attempts + 1, status = ${attempt.status},
          next_attempt_at = ${attempt.status === "pending" ? attempt.nextAttemptAt : null}::bigint, lease_until = NULL,
          last_status_code = ${attempt.statusCode}::integer, last_duration_ms = ${Math.round(attempt.durationMs)}::integer,
          last_error = ${attempt.error}::text, last_request_headers = ${exchange.requestHeaders}::jsonb,
          last_response_headers = ${exchange.responseHeaders}::jsonb, last_response_body = ${exchange.responseBody}::text,
          last_response_truncated = ${exchange.responseTruncated}::boolean, updated_at = ${now}::bigint
        WHERE id = ${attempt.deliveryId} AND attempts = ${attempt.attemptsBefore} AND status = 'pending'
        RETURNING endpoint_id`
      const endpointId = rows[0]?.endpoint_id
      if (endpointId === undefined) return false
      if (attempt.disableEndpoint) {
        yield* sql`UPDATE webhook_endpoints SET status = 'disabled', updated_at = ${now}::bigint
          WHERE id = ${endpointId} AND status = 'active'`
        yield* sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_until = NULL,
            last_error = 'the endpoint answered 410 Gone and was disabled', updated_at = ${now}::bigint
          WHERE endpoint_id = ${endpointId} AND status = 'pending'`
      }
      return true
    }).pipe(attempt.disableEndpoint ? sql.withTransaction : identity, Effect.orDie, spans.record)

  // The rows are found by id as an array too (see `claim`): not by a join the planner may walk
  // the pending index for.
  const recordMany = (attempts: ReadonlyArray<AttemptRecord>) =>
    Effect.gen(function*() {
      const recorded: Array<DeliveryId> = []
      const plain = attempts.filter((a) => !a.disableEndpoint)
      for (const a of attempts) if (a.disableEndpoint && (yield* record(a))) recorded.push(a.deliveryId)
      if (plain.length === 0) return recorded
      const now = yield* Clock.currentTimeMillis
      const values = plain.map((a) => {
        const exchange = exchangeValues(a)
        return sql`(${a.deliveryId}::text, ${a.attemptsBefore}::integer, ${a.status}::text,
          ${a.status === "pending" ? a.nextAttemptAt : null}::bigint, ${a.statusCode}::integer,
          ${Math.round(a.durationMs)}::integer, ${a.error}::text, ${exchange.requestHeaders}::jsonb,
          ${exchange.responseHeaders}::jsonb, ${exchange.responseBody}::text, ${exchange.responseTruncated}::boolean)`
      })
      const rows = yield* sql<{ readonly id: DeliveryId }>`UPDATE webhook_deliveries AS d SET attempts = d.attempts + 1,
          status = v.status, next_attempt_at = v.next_attempt_at, lease_until = NULL, last_status_code = v.status_code,
          last_duration_ms = v.duration_ms, last_error = v.error, last_request_headers = v.request_headers,
          last_response_headers = v.response_headers, last_response_body = v.response_body,
          last_response_truncated = v.response_truncated, updated_at = ${now}::bigint
        FROM (VALUES ${sql.csv(values)}) AS v (id, attempts_before, status, next_attempt_at, status_code, duration_ms, error,
          request_headers, response_headers, response_body, response_truncated)
        WHERE d.id = ANY(${textArray(plain.map((a) => a.deliveryId))}::text[]) AND d.id = v.id
          AND d.attempts = v.attempts_before AND d.status = 'pending'
        RETURNING d.id`
      return [...recorded, ...rows.map((r) => r.id)]
    }).pipe(Effect.orDie, spans.recordMany)

  const release = (ids: ReadonlyArray<DeliveryId>) =>
    ids.length === 0
      ? Effect.void
      : sql`UPDATE webhook_deliveries SET lease_until = NULL
          WHERE id = ANY(${textArray(ids)}::text[]) AND status = 'pending'`.pipe(
          Effect.asVoid,
          Effect.orDie,
          spans.release
        )

  const listForEndpoint = (query: { readonly endpointId: WebhookEndpointId; readonly after: Cursor | null; readonly limit: number }) =>
    sql`SELECT ${select} FROM webhook_deliveries WHERE endpoint_id = ${query.endpointId}
        ${query.after === null ? sql`` : sql`AND (created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(deliveryFromRow)),
      Effect.orDie,
      spans.listForEndpoint
    )

  // Migration 0008's index walks the partner's events newest first; the mode is the payment's, or
  // a partner-level event's own.
  const listEvents = (query: {
    readonly partnerId: PartnerId
    readonly mode: Mode
    readonly paymentId?: PaymentId | undefined
    readonly after: Cursor | null
    readonly limit: number
  }) =>
    sql<{ readonly id: EventId; readonly created_at: string | number; readonly payload: unknown }>`
      SELECT id, created_at, payload FROM outbox_events
      WHERE partner_id = ${query.partnerId} AND coalesce(payload->'payment'->>'mode', payload->>'mode') = ${query.mode}
        ${query.paymentId === undefined ? sql`` : sql`AND payment_id = ${query.paymentId}`}
        ${query.after === null ? sql`` : sql`AND (created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      // Events this version cannot read (a newer version's) are left out.
      Effect.map((rows) =>
        rows.flatMap((row) =>
          Option.match(readableEvent(row.payload), {
            onNone: () => [],
            onSome: (event) => [{ id: row.id, createdAt: toInt(row.created_at), event }]
          })
        )
      ),
      Effect.orDie,
      spans.listEvents
    )

  // A payment's events are few (one per status change): found by outbox_events_payment, then their deliveries.
  const listForPayment = (query: {
    readonly partnerId: PartnerId
    readonly mode: Mode
    readonly paymentId: PaymentId
    readonly after: Cursor | null
    readonly limit: number
  }) =>
    sql`SELECT ${sql.literal(deliveryColumns("d"))}
      FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE e.payment_id = ${query.paymentId} AND e.partner_id = ${query.partnerId} AND e.payload->'payment'->>'mode' = ${query.mode}
        ${query.after === null ? sql`` : sql`AND (d.created_at, d.id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`}
      ORDER BY d.created_at DESC, d.id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(deliveryFromRow)),
      Effect.orDie,
      spans.listForPayment
    )

  const findEvent = (id: EventId) =>
    sql<{ readonly payload: unknown }>`SELECT payload FROM outbox_events WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.flatMap(Option.fromNullishOr(rows[0]), (row) => readableEvent(row.payload))),
      Effect.orDie,
      spans.findEvent
    )

  const redeliver = (event: WebhookEvent, endpoints: ReadonlyArray<WebhookEndpointId>) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* insertDeliveries(endpoints.map((endpoint) => [event, endpoint] as const), true, now)
      return rows.map(deliveryFromRow)
    }).pipe(Effect.orDie, spans.redeliver)

  return DeliveryQueue.of({ fanOut, claim, record, recordMany, release, listForEndpoint, listEvents, listForPayment, findEvent, redeliver })
})

/** `DeliveryQueue` over the `SqlClient` and `WebhookSecretCipher` in context. */
export const layer: Layer.Layer<DeliveryQueue, never, SqlClient.SqlClient | WebhookSecretCipher> = Layer.effect(DeliveryQueue, make)
