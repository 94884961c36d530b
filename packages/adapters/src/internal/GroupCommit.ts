/**
 * Group commit of payment inserts (internal/SharedStatement.ts): inserts started together are
 * written by one statement, each payment still with its events and its stored response, or not at
 * all.
 *
 * @module
 */
import { type IdempotencyCompletion, idempotencyLeaseLost, type OutboxEvent, type Payment } from "@paygate/domain"
import { Effect, Exit } from "effect"
import type { SqlClient } from "effect/sql"
import type { Statement } from "effect/sql/Statement"
import { leaseLostState } from "../migrations/0007_idempotency_lease.ts"
import { completeStatement } from "./IdempotencyRows.ts"
import { paymentColumns } from "./PaymentRow.ts"
import { eventsInsert } from "./PaymentWrites.ts"
import * as SharedStatement from "./SharedStatement.ts"
import { sqlState } from "./UniqueViolation.ts"

/** One payment insert: the payment, its events and, when given, its request's stored response. */
export interface PaymentInsert {
  readonly payment: Payment
  readonly events: ReadonlyArray<OutboxEvent>
  readonly completion: IdempotencyCompletion | undefined
}

// Inserts per shared statement: about 30 bound values each, far below PostgreSQL's limit.
const maxGroup = 50

/** Builds `insert` over `sql`: grouped outside transactions, alone inside one. */
export const make = (sql: SqlClient.SqlClient) => {
  const paymentInsert = (payment: Payment) => {
    const c = paymentColumns(payment)
    return sql`INSERT INTO payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status,
        state_version, checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at, link_id, hold)
      VALUES (${c.id}, ${c.partner_id}, ${c.merchant_id}, ${c.mode}, ${c.reference_id}, ${c.currency}, ${c.value}::numeric,
        ${c.status}, ${c.state_version}, ${c.checkout}::jsonb, ${c.expires_at}, ${c.commitment}::jsonb,
        ${c.cancelled_reason}, ${c.cancelled_at}::bigint, ${c.created_at}, ${c.updated_at}, ${c.link_id}, ${c.hold}::jsonb)`
  }

  // The inserts' writes as data-modifying WITHs (`w0`, `w1`, …) and their completions (`h0`, …),
  // ending in `idempotency_fence`, which fails the whole statement (so none of it commits) when
  // any completion matched no held key: that key's lease was lost to a retry.
  const statement = (inserts: ReadonlyArray<PaymentInsert>) => {
    const writes: Array<Statement<unknown>> = []
    const held: Array<Statement<unknown>> = []
    for (const { completion, events, payment } of inserts) {
      writes.push(paymentInsert(payment))
      const outbox = eventsInsert(sql, events)
      if (outbox !== undefined) writes.push(outbox)
      if (completion !== undefined) held.push(completeStatement(sql, completion))
    }
    // One insert without a response needs no WITH: its last write is the statement.
    if (held.length === 0 && inserts.length === 1) {
      const last = writes.pop()!
      if (writes.length === 0) return last
      return sql`WITH ${sql.csv(named("w", writes))} ${last}`
    }
    const ctes = [...named("w", writes), ...named("h", held)]
    const fence = held.length === 0
      ? sql`SELECT true`
      : sql`SELECT idempotency_fence(${sql.and(held.map((_, i) => sql`EXISTS (SELECT 1 FROM ${sql.literal(`h${i}`)})`))})`
    return sql`WITH ${sql.csv(ctes)} ${fence}`
  }
  const named = (prefix: string, fragments: ReadonlyArray<Statement<unknown>>) =>
    fragments.map((fragment, i) => sql`${sql.literal(`${prefix}${i}`)} AS (${fragment})`)

  const alone = (inserts: ReadonlyArray<PaymentInsert>) =>
    Effect.suspend(() => statement(inserts)).pipe(
      Effect.asVoid,
      Effect.catchIf((error) => sqlState(error) === leaseLostState, () => Effect.fail(idempotencyLeaseLost())),
      Effect.catchTag("SqlError", Effect.die)
    )

  const insert = SharedStatement.make<PaymentInsert, void, ReturnType<typeof idempotencyLeaseLost>>(sql, {
    alone: (request) => alone([request]),
    together: (requests) => Effect.as(statement(requests), requests.map(() => Exit.void)),
    max: maxGroup
  })
  return insert
}
