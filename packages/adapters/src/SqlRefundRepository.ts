/**
 * `RefundRepository` on SQL (`refunds`). `payment_id` is unique (constraint
 * `refunds_one_per_payment`): of two concurrent inserts for a payment exactly one succeeds, the
 * other answers `AlreadyRefunded`.
 *
 * @module
 */
import { AlreadyRefunded, type PaymentId, Refund, RefundRepository } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

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
      Effect.withSpan("SqlRefundRepository.findByPayment")
    )

  const insert = (r: Refund) =>
    sql`INSERT INTO refunds (id, payment_id, partner_id, status, tx_hash, created_at, updated_at)
      VALUES (${r.id}, ${r.paymentId}, ${r.partnerId}, ${r.status}, ${r.txHash}, ${r.createdAt}::bigint, ${r.updatedAt}::bigint)`.pipe(
      sql.withTransaction,
      Effect.asVoid,
      Effect.catchIf(
        (error) => isUniqueViolation(error, onePerPaymentConstraint),
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
      Effect.withSpan("SqlRefundRepository.insert")
    )

  return RefundRepository.of({ insert, findByPayment })
})

/** `RefundRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<RefundRepository, never, SqlClient.SqlClient> = Layer.effect(RefundRepository, make)
