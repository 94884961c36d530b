/**
 * `PaymentRepository` on SQL (`payments` + `outbox_events`). Each write is atomic: the payment
 * row and its outbox events commit together or not at all (`insert` as one statement, `update` as
 * one transaction). `update` is a compare-and-set on `state_version`. Database failures are
 * defects (the port's contract).
 *
 * @module
 */
import {
  DuplicateCommitment,
  type IdempotencyCompletion,
  idempotencyLeaseLost,
  type OutboxEvent,
  type Payment,
  PaymentRepository,
  type PaymentQuery,
  traced
} from "@paygate/domain"
import { Effect, Layer, Option, RequestResolver, Schema } from "effect"
import { SqlClient, SqlResolver } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { completeStatement } from "./internal/IdempotencyRows.ts"
import { paymentColumns, paymentFromRow, paymentSelect } from "./internal/PaymentRow.ts"
import { compareAndSet, eventsInsert, insertEvents } from "./internal/PaymentWrites.ts"
import { isUniqueViolation, sqlState } from "./internal/UniqueViolation.ts"
import { leaseLostState } from "./migrations/0007_idempotency_lease.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlPaymentRepository.insert"),
  findById: traced("SqlPaymentRepository.findById"),
  update: traced("SqlPaymentRepository.update"),
  list: traced("SqlPaymentRepository.list")
}

const maxBatch = 500

// Migration 0004's indexes: one payment per authorization, one per transaction.
const onceIndexes = ["payments_authorization_once", "payments_transaction_once"]

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const select = sql.literal(paymentSelect)

  // One statement (the events' INSERT with the payment's, and the idempotency completion, as
  // data-modifying WITHs): atomic on its own, so one round trip instead of BEGIN, the writes and COMMIT.
  // With a completion, the statement ends in `idempotency_fence`, which fails it (so nothing of
  // it commits) when the key's lease was lost to a retry.
  const insert = (payment: Payment, events: ReadonlyArray<OutboxEvent>, completion?: IdempotencyCompletion) =>
    Effect.suspend(() => {
      const c = paymentColumns(payment)
      const paymentInsert = sql`INSERT INTO payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status,
          state_version, checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at)
        VALUES (${c.id}, ${c.partner_id}, ${c.merchant_id}, ${c.mode}, ${c.reference_id}, ${c.currency}, ${c.value}::numeric,
          ${c.status}, ${c.state_version}, ${c.checkout}::jsonb, ${c.expires_at}, ${c.commitment}::jsonb,
          ${c.cancelled_reason}, ${c.cancelled_at}::bigint, ${c.created_at}, ${c.updated_at})`
      const outbox = eventsInsert(sql, events)
      const writes = [paymentInsert, ...(outbox === undefined ? [] : [outbox])]
      if (completion !== undefined) {
        return sql`WITH ${sql.csv(writes.map((write, i) => sql`${sql.literal(`w${i}`)} AS (${write})`))},
          held AS (${completeStatement(sql, completion)})
          SELECT idempotency_fence(EXISTS (SELECT 1 FROM held))`
      }
      const last = writes.pop()!
      if (writes.length === 0) return last
      return sql`WITH ${sql.csv(writes.map((write, i) => sql`${sql.literal(`w${i}`)} AS (${write})`))} ${last}`
    }).pipe(
      Effect.asVoid,
      Effect.catchIf((error) => sqlState(error) === leaseLostState, () => Effect.fail(idempotencyLeaseLost())),
      Effect.catchTag("SqlError", Effect.die),
      spans.insert
    )

  // Reads started together (the same scheduler turn) share one statement, so concurrent status
  // reads cost the database one query and the pool one connection. A read inside a transaction
  // runs on its connection, batched only with reads of the same transaction (`SqlResolver` keys
  // batches by it). At most `maxBatch` ids per statement, far below PostgreSQL's bind limit.
  const byId = SqlResolver.findById({
    Id: Schema.String,
    Result: Schema.Record(Schema.String, Schema.Unknown),
    ResultId: (row) => row.id as string,
    execute: (ids) => sql<Record<string, unknown>>`SELECT ${select} FROM payments WHERE ${sql.in("id", ids)}`
  }).pipe(RequestResolver.batchN(maxBatch))
  const findById = (id: string) =>
    SqlResolver.request(id, byId).pipe(
      Effect.map((row) => Option.some(paymentFromRow(row))),
      Effect.catchTag("NoSuchElementError", () => Effect.succeedNone),
      Effect.orDie,
      spans.findById
    )

  // Only what a transition can change is written; identity, owner, amount and creation time never change.
  const update = (next: Payment, events: ReadonlyArray<OutboxEvent>) =>
    Effect.gen(function*() {
      if (!(yield* compareAndSet(sql, next))) return false
      yield* insertEvents(sql, events)
      return true
    }).pipe(
      sql.withTransaction,
      Effect.catchIf(
        (error) => onceIndexes.some((index) => isUniqueViolation(error, index)),
        () => Effect.fail(new DuplicateCommitment({ message: "The authorization or transaction already paid for another payment." }))
      ),
      Effect.catchTag("SqlError", Effect.die),
      spans.update
    )

  const list = (query: PaymentQuery) => {
    const where: Array<Fragment> = [sql`partner_id = ${query.partnerId}`, sql`mode = ${query.mode}`]
    if (query.merchantId !== undefined) where.push(sql`merchant_id = ${query.merchantId}`)
    if (query.statuses !== undefined && query.statuses.length > 0) where.push(sql.in("status", query.statuses))
    if (query.referenceId !== undefined) where.push(sql`reference_id = ${query.referenceId}`)
    if (query.createdFrom !== undefined) where.push(sql`created_at >= ${query.createdFrom}`)
    if (query.createdBefore !== undefined) where.push(sql`created_at < ${query.createdBefore}`)
    if (query.after !== null) {
      where.push(
        query.order === "asc"
          ? sql`(created_at, id) > (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`
          : sql`(created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`
      )
    }
    const order = query.order === "asc" ? sql.literal("created_at ASC, id ASC") : sql.literal("created_at DESC, id DESC")
    return sql`SELECT ${select} FROM payments WHERE ${sql.and(where)} ORDER BY ${order} LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(paymentFromRow)),
      Effect.orDie,
      spans.list
    )
  }

  return PaymentRepository.of({ insert, findById, update, list })
})

/** `PaymentRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<PaymentRepository, never, SqlClient.SqlClient> = Layer.effect(PaymentRepository, make)
