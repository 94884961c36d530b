/**
 * `RefundRepository` on SQL (`refunds`, and the refund's payouts in `payouts`, one per sender). `payment_id` is
 * unique (constraint `refunds_one_per_payment`): of two concurrent inserts for a payment exactly
 * one succeeds, the other answers `AlreadyRefunded`. An insert locks the payment row first, like a
 * settlement decision (`SqlPayoutRepository.decide`), then withdraws an unsigned settlement or
 * refuses a signed one.
 *
 * @module
 */
import { AlreadyRefunded, InvalidState, type PaymentId, type Payout, Refund, RefundRepository, traced } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { insertPayout } from "./internal/PayoutRow.ts"
import { toInt } from "./internal/Rows.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  findByPayment: traced("SqlRefundRepository.findByPayment"),
  insert: traced("SqlRefundRepository.insert")
}

/** The unique constraint behind `AlreadyRefunded`. */
export const onePerPaymentConstraint = "refunds_one_per_payment"

const decodeRefund = Schema.decodeUnknownSync(Refund)

const refundFromRow = (row: Record<string, unknown>): Refund =>
  decodeRefund({
    id: row.id,
    paymentId: row.payment_id,
    partnerId: row.partner_id,
    status: row.status,
    txHash: row.tx_hash,
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const findByPayment = (paymentId: PaymentId) =>
    sql`SELECT * FROM refunds WHERE payment_id = ${paymentId}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), refundFromRow)),
      Effect.orDie,
      spans.findByPayment
    )

  // The payment's live settlement: withdrawn while its transfer is unsigned, else the refund is refused.
  const withdrawSettlement = (paymentId: PaymentId) =>
    Effect.gen(function*() {
      yield* sql`SELECT id FROM payments WHERE id = ${paymentId} FOR UPDATE`
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

  const insert = (r: Refund, payouts: ReadonlyArray<Payout>) =>
    Effect.gen(function*() {
      yield* withdrawSettlement(r.paymentId)
      yield* sql`INSERT INTO refunds (id, payment_id, partner_id, status, tx_hash, created_at, updated_at)
        VALUES (${r.id}, ${r.paymentId}, ${r.partnerId}, ${r.status}, ${r.txHash}, ${r.createdAt}::bigint, ${r.updatedAt}::bigint)`
      for (const payout of payouts) yield* insertPayout(sql, payout)
    }).pipe(
      sql.withTransaction,
      Effect.catchIf(
        (error) => error._tag === "SqlError" && isUniqueViolation(error, onePerPaymentConstraint),
        () =>
          findByPayment(r.paymentId).pipe(
            Effect.flatMap((existing) =>
              Effect.fail(
                new AlreadyRefunded({
                  message: Option.match(existing, {
                    onNone: () => `Payment ${r.paymentId} already has a refund.`,
                    onSome: (refund) => `Payment ${r.paymentId} already has refund ${refund.id}.`
                  })
                })
              )
            )
          )
      ),
      Effect.catchTag("SqlError", Effect.die),
      spans.insert
    )

  return RefundRepository.of({ insert, findByPayment })
})

/** `RefundRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<RefundRepository, never, SqlClient.SqlClient> = Layer.effect(RefundRepository, make)
