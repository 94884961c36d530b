/**
 * Migration 0028: payouts over a payout limit wait for an owner's approval. `approval_required_reason`
 * says why one waits; `approved_by` and `approved_at` who let it go and when. The queue skips a
 * payout that waits (`payouts_work` still serves the rest); the day's total of a token reads
 * `payouts_day_total`.
 *
 * @module
 */

/** The statements of migration 0028, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE payouts ADD COLUMN approval_required_reason text, ADD COLUMN approved_by text, ADD COLUMN approved_at bigint`,
  `CREATE INDEX payouts_day_total ON payouts (asset, completed_at) WHERE status <> 'failed'`
]
