/**
 * `RefundRepository` on SQL (`refunds`, and each refund's payouts in `payouts`, one per sender).
 * An insert locks the payment row first, like a settlement decision (`SqlPayoutRepository.decide`),
 * then withdraws an unsigned (or failed) settlement or refuses a signed one, reads the payment's refunds and
 * refund payouts so far, and plans the new refund against them: concurrent refunds of one payment
 * are planned one after the other, so together they never exceed what was paid.
 *
 * @module
 */
import { InvalidState, type PaymentId, type PlannedRefund, type PriorRefunds, RefundRepository, traced } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { insertPayout } from "./internal/PayoutRow.ts"
import { insertClaim } from "./internal/RefundClaimRow.ts"
import * as PerPaymentReads from "./internal/PerPaymentReads.ts"
import { priorRefunds, refundFromRow, refundSelect } from "./internal/RefundRow.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  listByPayment: traced("SqlRefundRepository.listByPayment"),
  insert: traced("SqlRefundRepository.insert")
}

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Reads started together (a page of payment records) share one statement.
  const readRefunds = PerPaymentReads.make(
    sql,
    (ids) => sql`SELECT ${sql.literal(refundSelect)} FROM refunds WHERE payment_id = ANY(${ids}::text[]) ORDER BY created_at, id`,
    refundFromRow
  )
  const listByPayment = (paymentId: PaymentId) => readRefunds(paymentId).pipe(spans.listByPayment)

  const findByPayment = (paymentId: PaymentId) => Effect.map(listByPayment(paymentId), (all) => Option.fromNullishOr(all.at(-1)))

  // The payment's settlement: withdrawn while its transfer is unsigned (or failed), with what the
  // refund leaves decided anew (`SqlPayoutRepository.decide`); once signed, the refund is refused.
  const withdrawSettlement = (paymentId: PaymentId) =>
    Effect.gen(function*() {
      const [settlement] = yield* sql<{ readonly status: string; readonly tx_hash: string | null }>`SELECT status, tx_hash
        FROM payouts WHERE payment_id = ${paymentId} AND kind = 'settlement' AND status <> 'failed' FOR UPDATE`
      if (settlement !== undefined && (settlement.status === "completed" || settlement.tx_hash !== null)) {
        return yield* new InvalidState({
          message: `Payment ${paymentId} was settled to the merchant (transaction ${settlement.tx_hash}); ` +
            "its funds are no longer held, so it cannot be refunded."
        })
      }
      const withdrawn = yield* sql`DELETE FROM payouts WHERE payment_id = ${paymentId} AND kind = 'settlement' RETURNING leg`
      if (withdrawn.length > 0) yield* sql`UPDATE payments SET settlement_decided = false WHERE id = ${paymentId}`
    })

  const insert = <E>(paymentId: PaymentId, plan: (prior: PriorRefunds) => Effect.Effect<PlannedRefund, E>) =>
    Effect.gen(function*() {
      yield* sql`SELECT id FROM payments WHERE id = ${paymentId} FOR UPDATE`
      const { claim, payouts: legs, refund: r } = yield* plan(yield* priorRefunds(sql, paymentId))
      yield* withdrawSettlement(paymentId)
      yield* sql`INSERT INTO refunds (id, payment_id, partner_id, currency, amount, value, status, tx_hash, created_at, updated_at)
        VALUES (${r.id}, ${r.paymentId}, ${r.partnerId}, ${r.currency}, ${r.amount.toString()}::numeric, ${r.value.toString()}::numeric, ${r.status},
          ${r.txHash}, ${r.createdAt}::bigint, ${r.updatedAt}::bigint)`
      for (const payout of legs) yield* insertPayout(sql, payout)
      // A refund to an address the buyer chooses: its link now, its payout when claimed.
      if (claim !== undefined) yield* insertClaim(sql, r.id, claim)
      return r
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die),
      spans.insert
    )

  return RefundRepository.of({ insert, listByPayment, findByPayment })
})

/** `RefundRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<RefundRepository, never, SqlClient.SqlClient> = Layer.effect(RefundRepository, make)
