/**
 * Migration 0037: held payments (`capture: "manual"`).
 *
 * - `hold`: the payment's hold (capture deadline, amounts, the merchant's captures and voids) as the
 *   domain's JSON; `NULL` for every other payment.
 * - `status` admits `authorized`, `voided` and `reclaimed`, and only for held payments; the outbox
 *   admits their events.
 * - The worker's queue of `authorized` payments shares the executor's columns (`chain_due_at`,
 *   `chain_lease_until`), with an index of its own.
 *
 * @module
 */

/** The statements of migration 0037, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE payments ADD COLUMN hold jsonb`,
  `ALTER TABLE payments DROP CONSTRAINT payments_status_check`,
  `ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN (
    'requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled', 'authorized', 'voided', 'reclaimed'
  ))`,
  `ALTER TABLE payments ADD CONSTRAINT payments_held_statuses
    CHECK (hold IS NOT NULL OR status NOT IN ('authorized', 'voided', 'reclaimed'))`,
  `CREATE INDEX payments_hold_work ON payments (chain_due_at) WHERE status = 'authorized'`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received',
    'payment.refunded', 'payment.refund_failed', 'settlement_destination.changed',
    'subscription.activated', 'subscription.charged', 'subscription.charge_failed',
    'subscription.paused', 'subscription.resumed', 'subscription.cancelled', 'subscription.ended',
    'payment.authorized', 'payment.captured', 'payment.capture_failed', 'payment.voided', 'payment.reclaimed'
  ))`
]
