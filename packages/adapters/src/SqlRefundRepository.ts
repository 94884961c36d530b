/**
 * `RefundRepository` on SQL (`refunds`, and each refund's payouts in `payouts`, one per sender).
 * An insert locks the payment row first, like a settlement decision (`SqlPayoutRepository.decide`),
 * then withdraws an unsigned settlement or refuses a signed one, reads the payment's refunds and
 * refund payouts so far, and plans the new refund against them: concurrent refunds of one payment
 * are planned one after the other, so together they never exceed what was paid.
 *
 * @module
 */
import { InvalidState, type PaymentId, type PlannedRefund, type PriorRefunds, Refund, RefundRepository, traced } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { insertPayout, payoutFromRow, payoutSelect } from "./internal/PayoutRow.ts"
import { insertClaim } from "./internal/RefundClaimRow.ts"
import { toInt } from "./internal/Rows.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  listByPayment: traced("SqlRefundRepository.listByPayment"),
  insert: traced("SqlRefundRepository.insert")
}

const decodeRefund = Schema.decodeUnknownSync(Schema.toCodecJson(Refund))

const refundFromRow = (row: Record<string, unknown>): Refund =>
  decodeRefund({
    id: row.id,
    paymentId: row.payment_id,
    partnerId: row.partner_id,
    currency: row.currency,
    amount: row.amount,
    value: row.value,
    status: row.status,
    txHash: row.tx_hash,
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const listByPayment = (paymentId: PaymentId) =>
    sql`SELECT id, payment_id, partner_id, currency, amount::text AS amount, value::text AS value, status, tx_hash, created_at, updated_at
      FROM refunds WHERE payment_id = ${paymentId} ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(refundFromRow)),
      Effect.orDie,
      spans.listByPayment
    )

  const findByPayment = (paymentId: PaymentId) => Effect.map(listByPayment(paymentId), (all) => Option.fromNullishOr(all.at(-1)))

  // The payment's live settlement: withdrawn while its transfer is unsigned, else the refund is refused.
  const withdrawSettlement = (paymentId: PaymentId) =>
    Effect.gen(function*() {
      const [settlement] = yield* sql<{ readonly status: string; readonly tx_hash: string | null }>`SELECT status, tx_hash
        FROM payouts WHERE payment_id = ${paymentId} AND kind = 'settlement' AND status <> 'failed' FOR UPDATE`
      if (settlement === undefined) return
      if (settlement.status === "completed" || settlement.tx_hash !== null) {
        return yield* new InvalidState({
          message: `Payment ${paymentId} was settled to the merchant (transaction ${settlement.tx_hash}); ` +
            "its funds are no longer held, so it cannot be refunded."
        })
      }
      yield* sql`DELETE FROM payouts WHERE payment_id = ${paymentId} AND kind = 'settlement'`
    })

  const insert = <E>(paymentId: PaymentId, plan: (prior: PriorRefunds) => Effect.Effect<PlannedRefund, E>) =>
    Effect.gen(function*() {
      yield* sql`SELECT id FROM payments WHERE id = ${paymentId} FOR UPDATE`
      const refunds = yield* listByPayment(paymentId)
      const payouts = (yield* sql`SELECT ${sql.literal(payoutSelect)} FROM payouts WHERE payment_id = ${paymentId} AND kind = 'refund'`)
        .map(payoutFromRow)
      const { claim, payouts: legs, refund: r } = yield* plan({ refunds, payouts })
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
