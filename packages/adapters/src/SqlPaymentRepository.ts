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
  type OutboxEvent,
  type Payment,
  PaymentRepository,
  type PaymentQuery,
  traced
} from "@paygate/domain"
import { Effect, Layer, Option, RequestResolver, Schema } from "effect"
import { SqlClient, SqlResolver } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import * as GroupCommit from "./internal/GroupCommit.ts"
import { paymentFromRow, paymentSelect } from "./internal/PaymentRow.ts"
import { compareAndSet, insertEvents } from "./internal/PaymentWrites.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlPaymentRepository.insert"),
  findById: traced("SqlPaymentRepository.findById"),
  update: traced("SqlPaymentRepository.update"),
  list: traced("SqlPaymentRepository.list")
}

// Ids per statement at most: a bound on one statement's work, not a PostgreSQL limit (the ids are one parameter).
const maxBatch = 500

// Migration 0004's indexes: one payment per authorization, one per transaction.
const onceIndexes = ["payments_authorization_once", "payments_transaction_once"]

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const select = sql.literal(paymentSelect)

  // One statement per insert, shared by inserts started together (internal/GroupCommit.ts).
  const insertGrouped = GroupCommit.make(sql)
  const insert = (payment: Payment, events: ReadonlyArray<OutboxEvent>, completion?: IdempotencyCompletion) =>
    insertGrouped({ payment, events, completion }).pipe(spans.insert)

  // Reads started together (the same scheduler turn) share one statement, so concurrent status
  // reads cost the database one query and the pool one connection. A read inside a transaction
  // runs on its connection, batched only with reads of the same transaction (`SqlResolver` keys
  // batches by it). The ids are one array parameter, so every batch is the same prepared statement.
  const byId = SqlResolver.findById({
    Id: Schema.String,
    Result: Schema.Record(Schema.String, Schema.Unknown),
    ResultId: (row) => row.id as string,
    execute: (ids) => sql<Record<string, unknown>>`SELECT ${select} FROM payments WHERE id = ANY(${ids}::text[])`
  }).pipe(RequestResolver.batchN(maxBatch))
  // No stored id holds a NUL or a lone surrogate (PostgreSQL text cannot): such an id finds nothing
  // without a query, so it cannot fail the statement it would share with other reads.
  const findById = (id: string) =>
    !id.isWellFormed() || id.includes("\0") ? Effect.succeedNone : SqlResolver.request(id, byId).pipe(
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
