/**
 * `PayoutWork` on SQL: the queue is the pending payouts themselves (migration 0006's `due_at` /
 * `lease_until`, covered by `payouts_work`), so recording a payout enqueues it and finishing it
 * dequeues it. Claims take rows with `FOR UPDATE SKIP LOCKED` and lease them, like `SqlChainWork`;
 * a lease that ends without a release (a killed worker) frees the payout. A payout held for an owner's
 * approval (migration 0028) is skipped until it is approved. "Now" is the Effect
 * `Clock`, in Unix milliseconds.
 *
 * @module
 */
import { type PaymentId, type PayoutKey, type PayoutKind, PayoutWork, traced } from "@paygate/domain"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  claim: traced("SqlPayoutWork.claim"),
  release: traced("SqlPayoutWork.release")
}

/** Builds the queue over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const claim = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly payment_id: PaymentId; readonly kind: PayoutKind; readonly leg: number }>`UPDATE payouts
        SET lease_until = ${now + leaseMillis}::bigint
        WHERE (payment_id, kind, leg) IN (
          SELECT payment_id, kind, leg FROM payouts
          WHERE status = 'pending' AND coalesce(due_at, 0) <= ${now}::bigint AND coalesce(lease_until, 0) <= ${now}::bigint
            AND (approval_required_reason IS NULL OR approved_at IS NOT NULL)
          ORDER BY due_at NULLS FIRST
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING payment_id, kind, leg`
      return rows.map((row): PayoutKey => ({ paymentId: row.payment_id, kind: row.kind, leg: Number(row.leg) }))
    }).pipe(Effect.orDie, spans.claim)

  const release = (key: PayoutKey, afterMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE payouts SET lease_until = NULL, due_at = ${now + afterMillis}::bigint
        WHERE payment_id = ${key.paymentId} AND kind = ${key.kind} AND leg = ${key.leg ?? 0}`
    }).pipe(Effect.orDie, spans.release)

  return PayoutWork.of({ claim, release })
})

/** `PayoutWork` over the `SqlClient` in context. */
export const layer: Layer.Layer<PayoutWork, never, SqlClient.SqlClient> = Layer.effect(PayoutWork, make)
