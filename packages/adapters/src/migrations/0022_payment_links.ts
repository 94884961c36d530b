/**
 * Migration 0022: payment links (docs/payment-links.md).
 *
 * - `payment_links`: one row per link; the link itself is `body` (its canonical JSON), with the
 *   columns lists and visits filter on beside it. `active` is only ever changed in both.
 * - `payment_link_visits`: the payment each buyer visit opened, so a reload or a second click of
 *   the same visit finds it instead of opening another.
 * - `payments.link_id`: the link a payment was opened from (its totals and its webhooks).
 *
 * @module
 */

/** The statements of migration 0022, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE payment_links (
    id text COLLATE "C" PRIMARY KEY,
    partner_id text COLLATE "C" NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    merchant_id text COLLATE "C" NOT NULL,
    active boolean NOT NULL,
    body jsonb NOT NULL,
    created_at bigint NOT NULL
  )`,
  `CREATE INDEX payment_links_partner ON payment_links (partner_id, mode, created_at DESC, id DESC)`,
  `CREATE TABLE payment_link_visits (
    link_id text COLLATE "C" NOT NULL REFERENCES payment_links (id),
    token text COLLATE "C" NOT NULL,
    payment_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (link_id, token)
  )`,
  `ALTER TABLE payments ADD COLUMN link_id text COLLATE "C"`,
  `CREATE INDEX payments_link ON payments (link_id) WHERE link_id IS NOT NULL`
]
