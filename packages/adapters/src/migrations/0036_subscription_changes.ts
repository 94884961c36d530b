/**
 * Migration 0036: subscriptions replaced from a period on, and paused.
 *
 * - `replaced_by`: the subscription that takes over; `end_period`: the first period this one does not
 *   charge. Both are set together, once. `ended_reason` admits `replaced`.
 * - `status` admits `paused`; `skip_until`: after a pause, the periods before it not charged are
 *   skipped, and a charge may be `skipped`. The outbox admits `subscription.paused` and `.resumed`.
 *
 * @module
 */

/** The statements of migration 0036, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE subscriptions ADD COLUMN replaced_by text COLLATE "C" REFERENCES subscriptions (id)`,
  `ALTER TABLE subscriptions ADD COLUMN end_period integer CHECK (end_period >= 0)`,
  `ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_replaced_once CHECK ((replaced_by IS NULL) = (end_period IS NULL))`,
  `ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_ended_reason_check`,
  `ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_ended_reason_check
    CHECK (ended_reason IN ('completed', 'unpaid', 'not_subscribed', 'replaced'))`,
  `ALTER TABLE subscriptions ADD COLUMN skip_until integer CHECK (skip_until >= 0)`,
  `ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_status_check`,
  `ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_status_check
    CHECK (status IN ('subscribing', 'active', 'past_due', 'paused', 'cancelled', 'ended'))`,
  `ALTER TABLE subscription_charges DROP CONSTRAINT subscription_charges_status_check`,
  `ALTER TABLE subscription_charges ADD CONSTRAINT subscription_charges_status_check
    CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped'))`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received',
    'payment.refunded', 'payment.refund_failed', 'settlement_destination.changed',
    'subscription.activated', 'subscription.charged', 'subscription.charge_failed',
    'subscription.paused', 'subscription.resumed', 'subscription.cancelled', 'subscription.ended'
  ))`
]
