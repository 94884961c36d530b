/**
 * Migration 0018: a receipt whose transfer a reorganisation of the chain removed is kept, marked
 * `reversed_at` (Unix milliseconds), instead of deleted. Only receipts still on chain are unique per
 * (chain, transaction, log): the same transfer mined again in the new chain is recorded once more.
 * `chain_receipts_block` finds the receipts of the blocks a reorganisation replaced.
 *
 * @module
 */

/** The statements of migration 0018, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE chain_receipts ADD COLUMN reversed_at bigint`,
  `ALTER TABLE chain_receipts DROP CONSTRAINT chain_receipts_once`,
  `CREATE UNIQUE INDEX chain_receipts_once ON chain_receipts (chain_id, tx_hash, log_index) WHERE reversed_at IS NULL`,
  `CREATE INDEX chain_receipts_block ON chain_receipts (chain_id, block_number) WHERE reversed_at IS NULL`
]
