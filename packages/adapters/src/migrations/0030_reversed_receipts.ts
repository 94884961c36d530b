/**
 * Migration 0030: the receipts a reorganisation reversed, by transfer. A first refund of a receipt
 * looks here for the same transfer's earlier receipt (before the reorganisation) with a refund
 * pending or completed: a transfer is refunded once across its receipts.
 *
 * @module
 */

/** The statements of migration 0030, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX chain_receipts_reversed ON chain_receipts (chain_id, tx_hash, log_index) WHERE reversed_at IS NOT NULL`
]
