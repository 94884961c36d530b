/**
 * Refunds to and from their `refunds` rows: read by the refund store and, for a settlement's plan,
 * by the payout store.
 *
 * @module
 */
import { type PaymentId, Refund } from "@paygate/domain"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { payoutFromRow, payoutSelect } from "./PayoutRow.ts"
import { toInt } from "./Rows.ts"

const decodeRefund = Schema.decodeUnknownSync(Schema.toCodecJson(Refund))

/** The columns selected for a refund. */
export const refundSelect =
  "id, payment_id, partner_id, currency, amount::text AS amount, value::text AS value, status, tx_hash, created_at, updated_at"

/** Decodes a `refunds` row selected with {@link refundSelect}; an invalid row is a defect. */
export const refundFromRow = (row: Record<string, unknown>): Refund =>
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

/** A payment's refunds, oldest first. */
const refundsOf = (sql: SqlClient.SqlClient, paymentId: PaymentId) =>
  sql`SELECT ${sql.literal(refundSelect)} FROM refunds WHERE payment_id = ${paymentId} ORDER BY created_at, id`.pipe(
    Effect.map((rows) => rows.map(refundFromRow))
  )

/** A payment's refunds and their payouts so far, as a new refund or settlement is planned against them. */
export const priorRefunds = (sql: SqlClient.SqlClient, paymentId: PaymentId) =>
  Effect.gen(function*() {
    const refunds = yield* refundsOf(sql, paymentId)
    const payouts = (yield* sql`SELECT ${sql.literal(payoutSelect)} FROM payouts WHERE payment_id = ${paymentId} AND kind = 'refund'`)
      .map(payoutFromRow)
    return { refunds, payouts }
  })
