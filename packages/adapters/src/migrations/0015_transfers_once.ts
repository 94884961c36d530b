/**
 * Migration 0015: one payment per transfer rather than per transaction, and quarantined logs.
 *
 * - `payments_transfer_once` replaces `payments_transaction_once`: a transaction may carry several
 *   transfers (a batched withdrawal paying two deposit addresses, a multicall using two
 *   authorizations), each paying its own payment. A transfer of a commitment is told apart within
 *   its transaction by the deposit address it paid (`recipient`), else by its push reference or
 *   its authorization's nonce; the same transfer still pays one payment only.
 * - `chain_quarantine`: a transfer log the chain watcher could not record (one per chain,
 *   transaction and log), with what was read and why it failed; the watcher tries it again on later
 *   rounds without holding its cursor (`resolved_at` and `resolution` once recorded, or once its block
 *   left the chain).
 *
 * @module
 */

/** The statements of migration 0015, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE UNIQUE INDEX payments_transfer_once ON payments (
    (commitment ->> 'asset'), lower(commitment ->> 'txHash'), lower(coalesce(commitment ->> 'recipient', '')),
    lower(coalesce(commitment ->> 'reference', commitment -> 'authorization' ->> 'nonce', ''))
  ) WHERE commitment ->> 'txHash' IS NOT NULL`,
  `DROP INDEX payments_transaction_once`,
  `CREATE TABLE chain_quarantine (
    chain_id text COLLATE "C" NOT NULL,
    tx_hash text COLLATE "C" NOT NULL,
    log_index integer NOT NULL,
    transfer jsonb NOT NULL,
    reason text NOT NULL,
    attempts integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
    quarantined_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    resolved_at bigint,
    resolution text,
    PRIMARY KEY (chain_id, tx_hash, log_index)
  )`,
  `CREATE INDEX chain_quarantine_open ON chain_quarantine (chain_id, quarantined_at) WHERE resolved_at IS NULL`
]
