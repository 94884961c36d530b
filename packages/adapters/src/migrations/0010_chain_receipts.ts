/**
 * Migration 0010: reconciliation from the chain. Same conventions as 0001 (ids `text COLLATE "C"`,
 * times in Unix milliseconds unless named `_time`, which is a block's Unix seconds).
 *
 * - `chain_receipts`: every token transfer the watcher found arriving at a collection address, one
 *   per (chain, transaction, log) — `chain_receipts_once` makes a rescan (a restarted or second
 *   worker) record nothing twice. `tx_hash` is lower-case. A matched receipt names its payment and
 *   that payment's partner and mode (the partner lists it); an unmatched one names none.
 * - `chain_cursors`: per chain, the next block to scan and the hash of the last scanned block (a
 *   reorganisation deeper than the confirmations is noticed), leased to one worker at a time.
 * - `quotes_nonce`: a transfer's reference (or EIP-3009 nonce) finds its quote.
 * - `outbox_events.type` admits `payment.transfer_received`.
 *
 * @module
 */

/** The statements of migration 0010, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE chain_receipts (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^rcp_[A-Za-z0-9]{1,64}$'),
    chain_id text COLLATE "C" NOT NULL,
    tx_hash text COLLATE "C" NOT NULL CHECK (tx_hash = lower(tx_hash)),
    log_index integer NOT NULL CHECK (log_index >= 0),
    asset text NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    block_time bigint NOT NULL,
    sender text NOT NULL,
    value numeric(78, 0) NOT NULL CHECK (value >= 0),
    reference text,
    outcome text NOT NULL CHECK (outcome IN ('paid', 'overpaid', 'underpaid', 'late', 'unmatched')),
    payment_id text COLLATE "C" REFERENCES payments (id),
    partner_id text COLLATE "C",
    mode text CHECK (mode IN ('live', 'sandbox')),
    expected_value numeric(78, 0),
    payment_status text,
    recorded_at bigint NOT NULL,
    CONSTRAINT chain_receipts_once UNIQUE (chain_id, tx_hash, log_index),
    CONSTRAINT chain_receipts_matched CHECK ((outcome = 'unmatched') = (payment_id IS NULL))
  )`,
  `CREATE INDEX chain_receipts_partner ON chain_receipts (partner_id, mode, recorded_at DESC, id DESC)`,
  `CREATE INDEX chain_receipts_payment ON chain_receipts (payment_id)`,
  `CREATE INDEX chain_receipts_unmatched ON chain_receipts (recorded_at DESC, id DESC) WHERE payment_id IS NULL`,
  `CREATE TABLE chain_cursors (
    chain_id text COLLATE "C" PRIMARY KEY,
    next_block bigint CHECK (next_block >= 0),
    last_hash text,
    holder text,
    lease_until bigint,
    updated_at bigint NOT NULL
  )`,
  `CREATE INDEX quotes_nonce ON quotes ((claims ->> 'nonce'))`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received'
  ))`
]
