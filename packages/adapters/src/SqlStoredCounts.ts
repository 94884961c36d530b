/**
 * `StoredCounts` on SQL. Payments are counted by status with one `GROUP BY` (an index-only scan of
 * `payments_expiry` on PostgreSQL: its cost grows with the table); the outbox backlog reads the
 * partial index of unprocessed events. Database failures are defects.
 *
 * @module
 */
import { type Mode, type PaymentStatus, StoredCounts, traced } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Builds the counts over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const payments = (nowMillis: number) =>
    sql<{ readonly status: PaymentStatus; readonly mode: Mode; readonly payments: string | number }>`
      SELECT CASE WHEN status = 'requires_action' AND expires_at <= ${nowMillis}::bigint THEN 'expired' ELSE status END AS status,
        mode, count(*) AS payments
      FROM payments GROUP BY 1, 2`.pipe(
      Effect.map((rows) => rows.map((row) => ({ status: row.status, mode: row.mode, count: Number(row.payments) }))),
      Effect.orDie,
      traced("SqlStoredCounts.payments")
    )
  const outboxBacklog = sql<{ readonly events: string | number; readonly oldest: string | number | null }>`
    SELECT count(*) AS events, min(created_at) AS oldest FROM outbox_events WHERE processed_at IS NULL`.pipe(
    Effect.map(([row]) => ({
      unprocessed: Number(row?.events ?? 0),
      oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest)
    })),
    Effect.orDie,
    traced("SqlStoredCounts.outboxBacklog")
  )
  return StoredCounts.of({ payments, outboxBacklog })
})

/** `StoredCounts` over the `SqlClient` in context. */
export const layer: Layer.Layer<StoredCounts, never, SqlClient.SqlClient> = Layer.effect(StoredCounts, make)
