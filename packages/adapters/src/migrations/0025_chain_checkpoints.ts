/**
 * Migration 0025: the hashes of blocks the chain watcher read up to (one per range it advanced
 * over, the newest kept per chain), so that a reorganisation is traced back to where the chain
 * forked, however deep, instead of rewinding a fixed number of blocks.
 *
 * @module
 */

/** The statements of migration 0025, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE chain_checkpoints (
    chain_id text NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    PRIMARY KEY (chain_id, block_number)
  )`
]
