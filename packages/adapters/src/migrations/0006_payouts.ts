/**
 * Migration 0006: payouts, the transfers out of the collection address (settlements and refunds,
 * API rules §4 and §11), and the settlement decision of each succeeded payment.
 *
 * - `payouts`: one row per (payment, kind). `signed_tx` / `tx_hash` hold the current attempt's
 *   transaction, recorded before it is broadcast (sent once); `due_at` / `lease_until` (Unix ms)
 *   make pending payouts a queue with leases, like the executor's (`payouts_work`).
 * - `payouts_one_live_per_payment`: a payment's funds leave once: at most one payout of a payment
 *   that has not failed.
 * - `payments.settlement_decided`: whether the worker decided a succeeded payment's settlement
 *   (`payments_settlement_undecided` covers its scan). Payments that succeeded before this
 *   migration are decided by the worker too.
 * - Refunds requested before this migration get the payout that executes them.
 *
 * @module
 */

/** The statements of migration 0006, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE payouts (
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    kind text NOT NULL CHECK (kind IN ('settlement', 'refund')),
    refund_id text COLLATE "C" REFERENCES refunds (id),
    asset text NOT NULL,
    recipient text NOT NULL,
    value numeric(78, 0) NOT NULL CHECK (value > 0),
    status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
    tx_hash text,
    signed_tx text,
    attempts integer NOT NULL CHECK (attempts >= 0),
    last_error text,
    version integer NOT NULL CHECK (version >= 1),
    due_at bigint,
    lease_until bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    completed_at bigint,
    PRIMARY KEY (payment_id, kind),
    CHECK ((kind = 'refund') = (refund_id IS NOT NULL)),
    CHECK ((tx_hash IS NULL) = (signed_tx IS NULL))
  )`,
  `CREATE UNIQUE INDEX payouts_one_live_per_payment ON payouts (payment_id) WHERE status <> 'failed'`,
  `CREATE INDEX payouts_work ON payouts (due_at) WHERE status = 'pending'`,
  `ALTER TABLE payments ADD COLUMN settlement_decided boolean NOT NULL DEFAULT false`,
  `CREATE INDEX payments_settlement_undecided ON payments (updated_at) WHERE status = 'succeeded' AND NOT settlement_decided`,
  `INSERT INTO payouts (payment_id, kind, refund_id, asset, recipient, value, status, attempts, version, created_at, updated_at)
    SELECT r.payment_id, 'refund', r.id, p.commitment ->> 'asset', p.commitment ->> 'account',
      (p.commitment ->> 'tokenAmount')::numeric, 'pending', 0, 1, r.created_at, r.updated_at
    FROM refunds r JOIN payments p ON p.id = r.payment_id
    WHERE r.status = 'pending' AND p.commitment IS NOT NULL`
]
