/**
 * `EventOutbox` on SQL: the reading side of `outbox_events`.
 *
 * `claim` leases up to `limit` unprocessed events, oldest first, whose lease is absent or over:
 * it locks candidate rows with `FOR UPDATE SKIP LOCKED` (concurrent claimers skip each other's
 * rows instead of waiting) and sets `lease_until = now + leaseMillis` in the same statement. An
 * event whose claimer died is claimable again once its lease ends (at-least-once delivery).
 * `completeUnaddressed` completes, in one statement, the events in that window whose partner has no
 * active endpoint, so a partner without webhooks costs the dispatcher no reads or decodes.
 * `complete` sets `processed_at`; processed events are never claimed again. An event this version
 * cannot read (a newer version's, during an upgrade) is left out of the claim and set aside for a while.
 *
 * "Now" is the Effect `Clock` (so tests can move it), in Unix milliseconds.
 *
 * @module
 */
import { type EventId, EventOutbox, traced, type WebhookEvent } from "@paygate/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { readableEvent, unreadableEventHoldMillis } from "./internal/PaymentRow.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  claim: traced("SqlEventOutbox.claim"),
  completeUnaddressed: traced("SqlEventOutbox.completeUnaddressed"),
  complete: traced("SqlEventOutbox.complete")
}

/** Builds the outbox reader over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const claim = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      if (limit <= 0) return []
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly id: string; readonly type: string; readonly payload: unknown }>`
        WITH candidates AS (
          SELECT id FROM outbox_events
          WHERE processed_at IS NULL AND (lease_until IS NULL OR lease_until <= ${now}::bigint)
          ORDER BY created_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE outbox_events AS o SET lease_until = ${now + leaseMillis}::bigint
        FROM candidates WHERE o.id = candidates.id
        RETURNING o.created_at, o.id, o.type, o.payload`
      const events: Array<WebhookEvent> = []
      const unreadable: Array<{ readonly id: string; readonly type: string }> = []
      for (const row of rows) Option.match(readableEvent(row.payload), { onNone: () => unreadable.push(row), onSome: (e) => events.push(e) })
      if (unreadable.length > 0) {
        // Set aside rather than failing the claim: the events behind them still flow.
        yield* sql`UPDATE outbox_events SET lease_until = ${now + unreadableEventHoldMillis}::bigint
          WHERE id = ANY(${`{${unreadable.map((e) => e.id).join(",")}}`}::text[]) AND processed_at IS NULL`
        yield* Effect.logError(
          `outbox: this version cannot read ${unreadable.map((e) => `${e.id} (${e.type})`).join(", ")}; set aside for ${unreadableEventHoldMillis / 60_000} minutes, for a version that can`
        )
      }
      // UPDATE ... RETURNING has no order: restore the claim order (oldest first).
      return events.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    }).pipe(Effect.orDie, spans.claim)

  // The same window the claim takes (the oldest claimable), so a backlog of addressed events is
  // never walked in full each round; its rows are locked only for this statement.
  const completeUnaddressed = (limit: number) =>
    Effect.gen(function*() {
      if (limit <= 0) return 0
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql`
        WITH window_ AS (
          SELECT id, partner_id FROM outbox_events
          WHERE processed_at IS NULL AND (lease_until IS NULL OR lease_until <= ${now}::bigint)
          ORDER BY created_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE outbox_events AS o SET processed_at = ${now}::bigint, lease_until = NULL
        FROM window_ WHERE o.id = window_.id AND NOT EXISTS (
          SELECT 1 FROM webhook_endpoints AS w
          WHERE w.partner_id = window_.partner_id AND w.status = 'active' AND w.deleted_at IS NULL)
        RETURNING o.id`
      return rows.length
    }).pipe(Effect.orDie, spans.completeUnaddressed)

  const complete = (id: EventId) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE outbox_events SET processed_at = ${now}::bigint, lease_until = NULL
        WHERE id = ${id} AND processed_at IS NULL`
    }).pipe(Effect.orDie, spans.complete)

  return EventOutbox.of({ claim, completeUnaddressed, complete })
})

/** `EventOutbox` over the `SqlClient` in context. */
export const layer: Layer.Layer<EventOutbox, never, SqlClient.SqlClient> = Layer.effect(EventOutbox, make)
