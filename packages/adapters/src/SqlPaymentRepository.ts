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
import { Context, Effect, Exit, Layer, Option, Request, RequestResolver } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
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

/** A read of one payment row by id: the row, or `undefined` when no payment has the id. */
interface PaymentRead extends Request.Request<Record<string, unknown> | undefined, SqlError.SqlError> {
  readonly id: string
}
const PaymentRead = Request.of<PaymentRead>()

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
  // reads cost the database one query and the pool one connection. Batches are keyed by the
  // transaction connection of the reader's context (none outside one), and a batch runs in the
  // context of the read that opened it: a read inside a transaction runs on its connection,
  // batched only with reads of the same transaction. The ids are one array parameter, so every
  // batch is the same prepared statement. Rows are matched to reads by id as they come: no schema
  // runs over them here (`paymentFromRow` decodes each), and no request context is copied
  // (effect's `SqlResolver.findById` did both, per read, on every status request).
  const byId = RequestResolver.makeWith<PaymentRead>({
    batchKey: (entry) => Context.getOrUndefined(entry.context, sql.transactionService),
    delay: Effect.yieldNow,
    collectWhile: (reads) => reads.size < maxBatch,
    runAll: (entries) => {
      const ids = [...new Set(entries.map((entry) => entry.request.id))]
      return Effect.map(sql<Record<string, unknown>>`SELECT ${select} FROM payments WHERE id = ANY(${ids}::text[])`, (rows) => {
        const found = new Map(rows.map((row) => [row.id, row]))
        for (const entry of entries) entry.completeUnsafe(Exit.succeed(found.get(entry.request.id)))
      })
    }
  })
  // No stored id holds a NUL or a lone surrogate (PostgreSQL text cannot): such an id finds nothing
  // without a query, so it cannot fail the statement it would share with other reads.
  const findById = (id: string) =>
    !id.isWellFormed() || id.includes("\0") ? Effect.succeedNone : Effect.request(PaymentRead({ id }), byId).pipe(
      Effect.map((row) => (row === undefined ? Option.none() : Option.some(paymentFromRow(row)))),
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
