/**
 * Migration 0029: a settlement destination is used only from `usable_from` (Unix ms), set when it
 * is added or changed. Destinations stored before are usable at once (they were already in use).
 *
 * @module
 */

/** The statements of migration 0029, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE crypto_settlements ADD COLUMN usable_from bigint`,
  `UPDATE crypto_settlements SET usable_from = created_at`,
  `ALTER TABLE crypto_settlements ALTER COLUMN usable_from SET NOT NULL`
]
