/**
 * Migration 0004: the executor's queue and the one-payment-per-authorization rule (API rules §10, §4).
 *
 * - `chain_due_at` / `chain_lease_until` (Unix ms): when a `processing` payment's chain work is next
 *   due, and until when a worker holds it. Both NULL mean "due now, not held", so a confirm needs
 *   no extra write. `payments_chain_work` covers the claim query.
 * - `payments_authorization_once`: an EIP-3009 authorization (asset = chain + token, payer account,
 *   nonce) pays for one payment only, enforced before anything is broadcast (the confirm writes it).
 * - `payments_transaction_once`: a transaction pays for one payment only (push confirms carry it).
 *
 * @module
 */

/** The statements of migration 0004, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE payments ADD COLUMN chain_due_at bigint`,
  `ALTER TABLE payments ADD COLUMN chain_lease_until bigint`,
  `CREATE INDEX payments_chain_work ON payments (chain_due_at) WHERE status = 'processing'`,
  `CREATE UNIQUE INDEX payments_authorization_once ON payments (
    (commitment ->> 'asset'), (commitment ->> 'account'), (commitment -> 'authorization' ->> 'nonce')
  ) WHERE commitment -> 'authorization' ->> 'nonce' IS NOT NULL`,
  `CREATE UNIQUE INDEX payments_transaction_once ON payments ((commitment ->> 'asset'), lower(commitment ->> 'txHash'))
    WHERE commitment ->> 'txHash' IS NOT NULL`
]
