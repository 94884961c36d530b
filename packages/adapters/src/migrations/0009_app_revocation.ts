/**
 * Migration 0009: wallet apps can be revoked (`npm run admin -- app revoke`). A revoked app's
 * `App-Id` is no longer found by `SqlCredentialStore`; its wallet keys are revoked with it.
 *
 * @module
 */

/** The statements of migration 0009, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE apps ADD COLUMN revoked_at bigint`
]
