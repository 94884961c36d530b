/**
 * Migration 0038: deposit sweeps by payment.
 *
 * Settlement asks, for each payment it decides, whether a sweep of its deposit exists at all
 * (`SqlPayoutRepository.undecided`). Only unswept sweeps were indexed by payment, so the question
 * read every sweep ever made, and that table grows with every deposit payment.
 *
 * @module
 */

/** The statements of migration 0038, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX deposit_sweeps_payment ON deposit_sweeps (payment_id)`
]
