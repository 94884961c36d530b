/**
 * Payouts to and from their `payouts` rows (migrations 0006, 0016 and 0028). The current attempt's transaction is
 * two columns, `tx_hash` and `signed_tx`, both set or both `NULL`.
 *
 * @module
 */
import { Payout } from "@paygate/domain"
import { Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { toInt, toIntOrNull } from "./Rows.ts"

const PayoutJson = Schema.toCodecJson(Payout)
const decodePayout = Schema.decodeUnknownSync(PayoutJson)

/** The columns selected for a payout. */
export const payoutSelect =
  "payment_id, kind, leg, refund_id, asset, recipient, value::text AS value, status, tx_hash, signed_tx, attempts, last_error, version, created_at, updated_at, completed_at, approval_required_reason, approved_by, approved_at"

/** Decodes a `payouts` row selected with {@link payoutSelect}; an invalid row is a defect. */
export const payoutFromRow = (row: Record<string, unknown>): Payout =>
  decodePayout({
    paymentId: row.payment_id,
    kind: row.kind,
    leg: toInt(row.leg),
    refundId: row.refund_id,
    asset: row.asset,
    recipient: row.recipient,
    value: row.value,
    status: row.status,
    transfer: row.tx_hash === null ? null : { txHash: row.tx_hash, raw: row.signed_tx },
    attempts: toInt(row.attempts),
    lastError: row.last_error,
    version: toInt(row.version),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at),
    completedAt: toIntOrNull(row.completed_at),
    approvalRequired: row.approval_required_reason,
    approvedBy: row.approved_by,
    approvedAt: toIntOrNull(row.approved_at)
  })

/** The `INSERT` of a new payout (in the caller's transaction). */
export const insertPayout = (sql: SqlClient.SqlClient, p: Payout) =>
  sql`INSERT INTO payouts (payment_id, kind, leg, refund_id, asset, recipient, value, status, tx_hash, signed_tx, attempts,
      last_error, version, created_at, updated_at, completed_at, approval_required_reason, approved_by, approved_at)
    VALUES (${p.paymentId}, ${p.kind}, ${p.leg}, ${p.refundId}, ${p.asset}, ${p.recipient}, ${p.value.toString()}::numeric, ${p.status},
      ${p.transfer?.txHash ?? null}, ${p.transfer?.raw ?? null}, ${p.attempts}, ${p.lastError}, ${p.version},
      ${p.createdAt}::bigint, ${p.updatedAt}::bigint, ${p.completedAt}::bigint, ${p.approvalRequired}, ${p.approvedBy},
      ${p.approvedAt}::bigint)`
