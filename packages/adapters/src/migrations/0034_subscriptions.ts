/**
 * Migration 0034: subscriptions and their charges.
 *
 * - `subscriptions`: the buyer's signed terms (`amount_per_period` in token base units, exact;
 *   `start_at` in Unix ms like every `*_at`; `sig_deadline` in Unix seconds, as the permit carries
 *   it; `periods` NULL until cancelled), where the subscription stands, and the worker's queue:
 *   `next_check_at` / `lease_until` (Unix ms), leased like the executor's payments. `plan_id` has no
 *   foreign key: plans are not stored here yet.
 * - `subscriptions_due` serves the worker's claim: only subscriptions not final, by when they are due.
 * - `subscription_charges`: one row per (subscription, period), compare-and-set on `version`.
 * - `outbox_events` admits the subscription events, partner-level like a destination's change:
 *   only a payment's event has a payment.
 *
 * @module
 */

/** The statements of migration 0034, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE subscriptions (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^sub_[A-Za-z0-9]{1,64}$'),
    plan_id text COLLATE "C" NOT NULL CHECK (plan_id ~ '^pln_[A-Za-z0-9]{1,64}$'),
    partner_id text COLLATE "C" NOT NULL,
    merchant_id text COLLATE "C" NOT NULL REFERENCES merchants (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    payer text NOT NULL,
    receiver text NOT NULL,
    asset text NOT NULL,
    amount_per_period numeric(78, 0) NOT NULL CHECK (amount_per_period > 0),
    period_seconds bigint NOT NULL CHECK (period_seconds > 0),
    start_at bigint NOT NULL,
    periods integer CHECK (periods >= 1),
    salt text NOT NULL,
    permit_signature text NOT NULL,
    sig_deadline bigint NOT NULL,
    subscribe_tx text,
    status text NOT NULL CHECK (status IN ('subscribing', 'active', 'past_due', 'cancelled', 'ended')),
    ended_reason text CHECK (ended_reason IN ('completed', 'unpaid', 'not_subscribed')),
    cancelled_by text CHECK (cancelled_by IN ('merchant', 'payer')),
    cancel_tx text,
    closed_on_chain boolean NOT NULL,
    next_check_at bigint NOT NULL,
    lease_until bigint,
    version integer NOT NULL CHECK (version >= 1),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  `CREATE INDEX subscriptions_due ON subscriptions (next_check_at) WHERE status NOT IN ('cancelled', 'ended') OR NOT closed_on_chain`,
  `CREATE TABLE subscription_charges (
    subscription_id text COLLATE "C" NOT NULL REFERENCES subscriptions (id),
    period_index integer NOT NULL CHECK (period_index >= 0),
    amount numeric(78, 0) NOT NULL CHECK (amount > 0),
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    failed_attempts integer NOT NULL CHECK (failed_attempts >= 0),
    next_attempt_at bigint NOT NULL,
    tx_hash text,
    last_error text,
    version integer NOT NULL CHECK (version >= 1),
    updated_at bigint NOT NULL,
    PRIMARY KEY (subscription_id, period_index)
  )`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received',
    'payment.refunded', 'payment.refund_failed', 'settlement_destination.changed',
    'subscription.activated', 'subscription.charged', 'subscription.charge_failed',
    'subscription.cancelled', 'subscription.ended'
  ))`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_payment_events`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_payment_events
    CHECK ((payment_id IS NOT NULL) = (type LIKE 'payment.%'))`
]
