/**
 * Migration 0035: subscription plans, and the listings of plans and subscriptions.
 *
 * - `plans`: a merchant's plan; `value` is exact (`numeric(78,0)`: minor units of a currency or
 *   base units of a token), `period_seconds` / `trial_seconds` in seconds as the contract counts,
 *   `periods` NULL for an open-ended term. Only `active` and `updated_at` ever change.
 * - `subscriptions.plan_id` now references `plans` (no deployment stored a subscription before).
 * - The listings, newest first by partner and mode, and by merchant or plan: as in 0033 the partner
 *   and mode follow the merchant (or plan) in the key, so another partner's id finds nothing at once.
 *
 * @module
 */

/** The statements of migration 0035, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE plans (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^pln_[A-Za-z0-9]{1,64}$'),
    partner_id text COLLATE "C" NOT NULL,
    merchant_id text COLLATE "C" NOT NULL REFERENCES merchants (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    name text NOT NULL,
    unit text NOT NULL,
    value numeric(78, 0) NOT NULL CHECK (value > 0),
    period_seconds bigint NOT NULL CHECK (period_seconds > 0),
    trial_seconds bigint NOT NULL CHECK (trial_seconds >= 0),
    periods integer CHECK (periods >= 1),
    active boolean NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  `CREATE INDEX plans_partner ON plans (partner_id, mode, created_at DESC, id DESC)`,
  `CREATE INDEX plans_merchant ON plans (merchant_id, partner_id, mode, created_at DESC, id DESC)`,
  `ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_plan_id_fkey FOREIGN KEY (plan_id) REFERENCES plans (id)`,
  `CREATE INDEX subscriptions_partner ON subscriptions (partner_id, mode, created_at DESC, id DESC)`,
  `CREATE INDEX subscriptions_merchant ON subscriptions (merchant_id, partner_id, mode, created_at DESC, id DESC)`,
  `CREATE INDEX subscriptions_plan ON subscriptions (plan_id, partner_id, mode, created_at DESC, id DESC)`
]
