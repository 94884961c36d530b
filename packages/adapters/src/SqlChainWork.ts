/**
 * `ChainWork` and `HoldWork` on SQL: the executor's queue is the `processing` payments themselves
 * (migration 0004's `chain_due_at` / `chain_lease_until`), so a confirm enqueues by committing and
 * settling dequeues; the held payments' queue is the `authorized` ones, on the same columns. Claims take rows with `FOR UPDATE SKIP LOCKED` (concurrent claimers skip each other's
 * rows) and lease them; a lease that ends without a release (a killed worker) frees the row.
 * "Now" is the Effect `Clock`, in Unix milliseconds.
 *
 * @module
 */
import { ChainWork, HoldWork, type PaymentId, traced } from "@paygate/domain"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  claim: traced("SqlChainWork.claim"),
  release: traced("SqlChainWork.release")
}

/** Builds the queue of payments in `status` over the `SqlClient` in context. */
const makeQueue = (status: "processing" | "authorized") => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const claim = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly id: PaymentId }>`UPDATE payments SET chain_lease_until = ${now + leaseMillis}::bigint
        WHERE id IN (
          SELECT id FROM payments
          WHERE status = ${status} AND coalesce(chain_due_at, 0) <= ${now}::bigint
            AND coalesce(chain_lease_until, 0) <= ${now}::bigint
          ORDER BY chain_due_at NULLS FIRST
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id`
      return rows.map((row) => row.id)
    }).pipe(Effect.orDie, spans.claim)

  const release = (id: PaymentId, afterMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE payments SET chain_lease_until = NULL, chain_due_at = ${now + afterMillis}::bigint WHERE id = ${id}`
    }).pipe(Effect.orDie, spans.release)

  return { claim, release }
})

/** Builds the executor's queue over the `SqlClient` in context. */
export const make = Effect.map(makeQueue("processing"), ChainWork.of)

/** `ChainWork` over the `SqlClient` in context. */
export const layer: Layer.Layer<ChainWork, never, SqlClient.SqlClient> = Layer.effect(ChainWork, make)

/** `HoldWork` (the `authorized` payments) over the `SqlClient` in context. */
export const layerHolds: Layer.Layer<HoldWork, never, SqlClient.SqlClient> = Layer.effect(HoldWork, Effect.map(makeQueue("authorized"), HoldWork.of))
