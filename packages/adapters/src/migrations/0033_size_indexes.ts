/**
 * Migration 0033: indexes the query plans asked for once the tables are large.
 *
 * - A merchant's payment listing (`GET /v1/merchants/payments`, and a partner listing filtered by
 *   merchant) walked the partner's whole listing index newest first and dropped the other merchants'
 *   rows: with one partner holding most payments, a small merchant's page read thousands of rows.
 *   The partner and mode follow the merchant in the key: a listing by another partner's merchant id
 *   then finds nothing at once, where it would walk that merchant's payments and drop each.
 * - The dashboard's session cleanup deletes sessions past either expiry; only the absolute one was
 *   indexed, so the `OR` read the whole table on every sign-in.
 *
 * @module
 */

/** The statements of migration 0033, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE INDEX payments_merchant_listing ON payments (merchant_id, partner_id, mode, created_at, id)`,
  `CREATE INDEX dashboard_sessions_idle_expiry ON dashboard_sessions (idle_expires_at)`
]
