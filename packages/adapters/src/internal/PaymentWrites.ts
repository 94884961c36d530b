/**
 * The statements every adapter that changes payments shares (the payment repository, payouts,
 * receipts): outbox events and a payment's compare-and-set, each run in the caller's transaction.
 * Settlement destinations write their (partner-level) outbox events with them too.
 *
 * @module
 */
import type { Payment, WebhookEvent } from "@paygate/domain"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { type OutboxColumns, outboxColumns, paymentColumns } from "./PaymentRow.ts"

// Outbox rows as a `VALUES` list, typed: outside an INSERT's own VALUES, PostgreSQL would read the parameters as text.
const outboxValues = (sql: SqlClient.SqlClient, rows: ReadonlyArray<OutboxColumns>) =>
  sql`VALUES ${sql.csv(rows.map((c) =>
    sql`(${c.id}, ${c.type}, ${c.partner_id}, ${c.payment_id}, ${c.payload}::jsonb, ${c.created_at}::bigint)`
  ))}`

/** The `INSERT` of outbox rows, or `undefined` for none (subscriptions write their events' rows through it too). */
export const outboxInsert = (sql: SqlClient.SqlClient, rows: ReadonlyArray<OutboxColumns>) =>
  rows.length === 0
    ? undefined
    : sql`INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at) ${outboxValues(sql, rows)}`

/** The `INSERT` of outbox events, or `undefined` for none (payouts and settlement destinations write events too). */
export const eventsInsert = (sql: SqlClient.SqlClient, events: ReadonlyArray<WebhookEvent>) =>
  outboxInsert(sql, events.map(outboxColumns))

/** Inserts outbox events (in the caller's transaction). */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<WebhookEvent>) =>
  eventsInsert(sql, events)?.pipe(Effect.asVoid) ?? Effect.void

// The compare-and-set's `UPDATE`, answering the id of the row it changed (none when the stored version moved on).
const compareAndSetUpdate = (sql: SqlClient.SqlClient, next: Payment) => {
  const c = paymentColumns(next)
  return sql`UPDATE payments SET
      status = ${c.status}, state_version = ${c.state_version}, checkout = ${c.checkout}::jsonb,
      expires_at = ${c.expires_at}, commitment = ${c.commitment}::jsonb, cancelled_reason = ${c.cancelled_reason},
      cancelled_at = ${c.cancelled_at}::bigint, updated_at = ${c.updated_at}, hold = ${c.hold}::jsonb,
      chain_due_at = CASE WHEN ${c.status} = 'authorized' THEN NULL ELSE chain_due_at END,
      -- Authorized: the executor's lease on it (it just settled it) is not the holds job's.
      chain_lease_until = CASE WHEN ${c.status} = 'authorized' AND status <> 'authorized' THEN NULL ELSE chain_lease_until END
    WHERE id = ${c.id} AND state_version = ${c.state_version - 1}
    RETURNING id`
}

/**
 * Compare-and-set of a payment row (in the caller's transaction): stores `next` if the stored
 * `state_version` is one less; answers whether it did. A change to an `authorized` payment (a
 * merchant's capture or void) makes its escrow work due at once; the executor's lease ends with its
 * authorization.
 */
export const compareAndSet = (sql: SqlClient.SqlClient, next: Payment) =>
  Effect.map(compareAndSetUpdate(sql, next), (rows) => rows.length > 0)

/**
 * {@link compareAndSet} and, only if it stored `next`, the outbox `events`: one statement, so no
 * transaction is needed (a statement is atomic) and the change costs one round trip instead of four
 * (begin, update, insert, commit). Answers whether it stored `next`.
 */
export const compareAndSetWithEvents = (sql: SqlClient.SqlClient, next: Payment, events: ReadonlyArray<WebhookEvent>) => {
  if (events.length === 0) return compareAndSet(sql, next)
  return sql`WITH changed AS (${compareAndSetUpdate(sql, next)})
    INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
    SELECT e.id, e.type, e.partner_id, e.payment_id, e.payload, e.created_at
    FROM changed, (${outboxValues(sql, events.map(outboxColumns))}) AS e (id, type, partner_id, payment_id, payload, created_at)
    RETURNING id`.pipe(Effect.map((inserted) => inserted.length > 0))
}
