/**
 * Migration 0027: refunds to an address the buyer chooses. A claim refund is a refund with no
 * payout until the buyer names the address on the claim page; its one-time link is kept here as
 * the SHA-256 hash of its token (never the token), with when it expires and, once claimed, when
 * and to whom (CAIP-10).
 *
 * @module
 */

/** The statements of migration 0027, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE refund_claims (
    refund_id text PRIMARY KEY REFERENCES refunds (id),
    token_hash text NOT NULL UNIQUE,
    expires_at bigint NOT NULL,
    claimed_at bigint,
    recipient text,
    CHECK ((claimed_at IS NULL) = (recipient IS NULL))
  )`
]
