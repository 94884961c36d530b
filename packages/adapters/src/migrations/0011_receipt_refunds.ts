/**
 * Migration 0011: refunds of receipts (`POST /v1/receipts/{id}/refund`). `refund` is the domain's
 * `ReceiptRefund` as JSON (its `version` is the compare-and-set counter); a pending refund is the
 * worker's queue through `refund_due_at` / `refund_lease_until` (Unix ms), as payouts are.
 *
 * @module
 */

/** The statements of migration 0011, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE chain_receipts ADD COLUMN refund jsonb`,
  `ALTER TABLE chain_receipts ADD COLUMN refund_due_at bigint`,
  `ALTER TABLE chain_receipts ADD COLUMN refund_lease_until bigint`,
  `CREATE INDEX chain_receipts_refunds_due ON chain_receipts (refund_due_at) WHERE refund ->> 'status' = 'pending'`
]
