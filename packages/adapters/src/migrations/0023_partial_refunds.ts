/**
 * Migration 0023: partial and multiple refunds. A payment may have several refunds until its paid
 * amount is used up, so `refunds_one_per_payment` goes; each refund records what it gives back,
 * `amount` in the payment's `currency` (minor units) and `value` in token base units. Refunds made
 * before were whole: the payment's amount, and the tokens of their payouts. A refund's end is reported by
 * `payment.refunded` or `payment.refund_failed`, which `outbox_events.type` now admits.
 *
 * @module
 */

/** The statements of migration 0023, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE refunds DROP CONSTRAINT refunds_one_per_payment,
    ADD COLUMN currency text,
    ADD COLUMN amount numeric(78,0) CHECK (amount > 0),
    ADD COLUMN value numeric(78,0) CHECK (value > 0)`,
  `UPDATE refunds r SET currency = p.currency, amount = p.value,
    value = COALESCE((SELECT sum(o.value) FROM payouts o WHERE o.refund_id = r.id), (p.commitment ->> 'tokenAmount')::numeric)
    FROM payments p WHERE p.id = r.payment_id`,
  `ALTER TABLE refunds ALTER COLUMN currency SET NOT NULL, ALTER COLUMN amount SET NOT NULL, ALTER COLUMN value SET NOT NULL`,
  `CREATE INDEX refunds_by_payment ON refunds (payment_id, created_at, id)`,
  `ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check`,
  `ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
    'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
    'payment.expired', 'payment.cancelled', 'payment.settled', 'payment.transfer_received',
    'payment.refunded', 'payment.refund_failed'
  ))`
]
