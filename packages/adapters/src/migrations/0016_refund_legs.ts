/**
 * Migration 0016: a refund of a payment paid in parts (several transfers, possibly from different
 * senders) is one payout per sender, each part's amount back to its sender. `payouts.leg` numbers
 * them (0 for a settlement, and for a refund of one sender); the key becomes (payment, kind, leg).
 * `payouts_one_live_per_payment` now holds per leg: a settlement and the first payout of a refund
 * are never live together, so a payment's funds still leave once.
 *
 * @module
 */

/** The statements of migration 0016, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE payouts ADD COLUMN leg integer NOT NULL DEFAULT 0 CHECK (leg >= 0),
    ADD CONSTRAINT payouts_settlement_one_leg CHECK (kind = 'refund' OR leg = 0)`,
  `ALTER TABLE payouts DROP CONSTRAINT payouts_pkey`,
  `ALTER TABLE payouts ADD PRIMARY KEY (payment_id, kind, leg)`,
  `DROP INDEX payouts_one_live_per_payment`,
  `CREATE UNIQUE INDEX payouts_one_live_per_payment ON payouts (payment_id, leg) WHERE status <> 'failed'`
]
