/**
 * `PaymentRepository` on SQL (`payments` + `outbox_events`). Each write is atomic: the payment
 * row and its outbox events commit together or not at all (`insert` as one statement, with the
 * request's response inside `SqlIdempotencyStore.completingWrite`; `update` as one transaction).
 * `update` is a compare-and-set on `state_version`. Database failures are defects (the port's
 * contract).
 *
 * @module
 */
import {
  DuplicateCommitment,
  type GasPaid,
  type OutboxEvent,
  type Payment,
  PaymentRepository,
  type PaymentQuery,
  traced
} from "@paygate/domain"
import { Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { recordGas } from "./internal/GasWrites.ts"
import * as GroupCommit from "./internal/GroupCommit.ts"
import { HeldWrite } from "./internal/HeldWrite.ts"
import { paymentFromRow, paymentSelect } from "./internal/PaymentRow.ts"
import { compareAndSet, compareAndSetWithEvents, insertEvents } from "./internal/PaymentWrites.ts"
import * as SharedStatement from "./internal/SharedStatement.ts"
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

// One payment per authorization (migration 0004), one per transfer (0015).
const onceIndexes = ["payments_authorization_once", "payments_transfer_once"]

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const select = sql.literal(paymentSelect)

  // One statement per insert, shared by inserts started together (internal/GroupCommit.ts). Inside
  // `SqlIdempotencyStore.completingWrite` the statement is held and runs later with the response.
  const insertGrouped = GroupCommit.make(sql)
  const insert = (payment: Payment, events: ReadonlyArray<OutboxEvent>) =>
    Effect.flatMap(Effect.serviceOption(HeldWrite), (held) =>
      Option.isSome(held)
        ? held.value.hold((completion) => insertGrouped({ payment, events, completion }).pipe(spans.insert))
        // No response to store, so no lease to lose.
        : insertGrouped({ payment, events, completion: undefined }).pipe(Effect.orDie, spans.insert))

  // Reads started together (the same scheduler turn, outside a transaction) share one statement
  // (internal/SharedStatement.ts), so concurrent status reads cost the database one query and the
  // pool one connection. The ids are one array parameter, so every read is the same prepared
  // statement, alone or together. Rows are matched to reads by id: no schema runs over them here
  // (`paymentFromRow` decodes each), and no request context is copied (effect's
  // `SqlResolver.findById` did both, per read, on every status request).
  const rowsById = (ids: ReadonlyArray<string>) =>
    Effect.map(sql<Record<string, unknown>>`SELECT ${select} FROM payments WHERE id = ANY(${ids.length === 1 ? ids : [...new Set(ids)]}::text[])`, (rows) => {
      const found = new Map<unknown, Record<string, unknown>>()
      for (const row of rows) found.set(row.id, row)
      return ids.map((id) => found.get(id))
    })
  const readRow = SharedStatement.make<string, Record<string, unknown> | undefined, never>(sql, {
    alone: (id) => Effect.orDie(Effect.map(rowsById([id]), ([row]) => row)),
    together: (ids) => Effect.map(rowsById(ids), (rows) => rows.map((row) => Exit.succeed(row))),
    max: maxBatch
  })
  // No stored id holds a NUL or a lone surrogate (PostgreSQL text cannot): such an id finds nothing
  // without a query, so it cannot fail the statement it would share with other reads.
  const findById = (id: string) =>
    !id.isWellFormed() || id.includes("\0") ? Effect.succeedNone : readRow(id).pipe(
      Effect.map((row) => (row === undefined ? Option.none() : Option.some(paymentFromRow(row)))),
      spans.findById
    )

  // With the gas a transaction paid: three statements in a transaction.
  const updateWithGas = (next: Payment, events: ReadonlyArray<OutboxEvent>, gas: GasPaid) =>
    Effect.gen(function*() {
      if (!(yield* compareAndSet(sql, next))) return false
      yield* insertEvents(sql, events)
      yield* recordGas(sql, next.mode, "payment", next.id, gas)
      return true
    }).pipe(sql.withTransaction)

  // Only what a transition can change is written; identity, owner, amount and creation time never change.
  // Without gas, the change and its events are one statement.
  const update = (next: Payment, events: ReadonlyArray<OutboxEvent>, gas?: GasPaid) =>
    (gas === undefined ? compareAndSetWithEvents(sql, next, events) : updateWithGas(next, events, gas)).pipe(
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
    if (query.linkId !== undefined) where.push(sql`link_id = ${query.linkId}`)
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
