/**
 * Migration 0013: per-payment deposit addresses. Same conventions as 0001 (ids
 * `text COLLATE "C"`, times in Unix milliseconds).
 *
 * - `deposit_addresses`: every deposit address handed out, one per (payment, chain) and never
 *   shared (`deposit_addresses_one_per_payment`, and the address is the key); lower-case. The
 *   watcher follows the recent ones (`deposit_addresses_recent`).
 * - `deposit_sweeps`: per (address, token), what arrived there and must move to the collection
 *   address: due while `marked_version > swept_version`. A sweep is recorded before its broadcast
 *   (`tx_hash`, `signed_tx`, and `tx_version`, the `marked_version` it covers), on every deposit of
 *   its batch; `due_at` / `lease_until` make it a queue with leases, like the payouts'.
 *
 * @module
 */

/** The statements of migration 0013, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE deposit_addresses (
    chain_id text COLLATE "C" NOT NULL,
    address text COLLATE "C" NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    created_at bigint NOT NULL,
    PRIMARY KEY (chain_id, address),
    CONSTRAINT deposit_addresses_one_per_payment UNIQUE (payment_id, chain_id)
  )`,
  `CREATE INDEX deposit_addresses_recent ON deposit_addresses (chain_id, created_at)`,
  `CREATE TABLE deposit_sweeps (
    chain_id text COLLATE "C" NOT NULL,
    address text COLLATE "C" NOT NULL,
    asset text NOT NULL,
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    marked_version integer NOT NULL CHECK (marked_version >= 1),
    swept_version integer NOT NULL CHECK (swept_version >= 0),
    tx_hash text,
    signed_tx text,
    tx_version integer,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error text,
    due_at bigint NOT NULL,
    lease_until bigint,
    updated_at bigint NOT NULL,
    PRIMARY KEY (chain_id, address, asset),
    FOREIGN KEY (chain_id, address) REFERENCES deposit_addresses (chain_id, address),
    CHECK ((tx_hash IS NULL) = (signed_tx IS NULL) AND (tx_hash IS NULL) = (tx_version IS NULL))
  )`,
  `CREATE INDEX deposit_sweeps_due ON deposit_sweeps (due_at) WHERE marked_version > swept_version`,
  `CREATE INDEX deposit_sweeps_tx ON deposit_sweeps (tx_hash) WHERE tx_hash IS NOT NULL`,
  `CREATE INDEX deposit_sweeps_unswept ON deposit_sweeps (payment_id) WHERE marked_version > swept_version`
]
