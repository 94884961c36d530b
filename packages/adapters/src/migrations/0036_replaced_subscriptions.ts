/**
 * Migration 0036: a subscription the payer replaced with new terms from the next period.
 *
 * - `replaced_by`: the subscription that takes over; `end_period`: the first period this one does not
 *   charge.
 *   Both are set together, once.
 * - `ended_reason` admits `replaced`.
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
    CHECK (ended_reason IN ('completed', 'unpaid', 'not_subscribed', 'replaced'))`
]
