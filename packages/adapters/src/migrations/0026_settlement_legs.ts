/**
 * Migration 0026: a payment refunded in part settles the rest, so its settlement follows its
 * refunds' payouts and takes the next leg instead of always 0. `payouts_one_live_per_payment`
 * (per leg) still keeps two live payouts of a payment apart; what they send together is bounded
 * by planning each, refund or settlement, with the payment row locked.
 *
 * @module
 */

/** The statements of migration 0026, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE payouts DROP CONSTRAINT payouts_settlement_one_leg`
]
