/**
 * Migration 0031: the outbox holds partner-level events too, which belong to no payment
 * (`settlement_destination.changed`, written with the destination's change). Their `payment_id`
 * is NULL; every payment event keeps one. The mode and merchant are in the payload, as a payment
 * event's are in its payment snapshot.
 *
 * @module
 */

/** The statements of migration 0031, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE outbox_events ALTER COLUMN payment_id DROP NOT NULL`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received',
    'payment.refunded', 'payment.refund_failed', 'settlement_destination.changed'
  ))`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_payment_events
    CHECK ((payment_id IS NULL) = (type = 'settlement_destination.changed'))`
]
