/**
 * Migration 0034: indexes the query plans asked for once the tables are large.
 *
 * - A merchant's payment listing (`GET /v1/merchants/payments`, and a partner listing filtered by
 *   merchant) walked the partner's whole listing index newest first and dropped the other merchants'
 *   rows: with one partner holding most payments, a small merchant's page read thousands of rows.
 *   Merchant ids are unique across partners, so the merchant and the page order are the whole key.
 * - The dashboard's session cleanup deletes sessions past either expiry; only the absolute one was
 *   indexed, so the `OR` read the whole table on every sign-in.
 *
 * @module
 */

/** The statements of migration 0034, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX payments_merchant_listing ON payments (merchant_id, created_at, id)`,
  `CREATE INDEX dashboard_sessions_idle_expiry ON dashboard_sessions (idle_expires_at)`
]
