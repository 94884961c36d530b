/**
 * Migration 0005: buyer data collection (travel rule, API rules §10). Same conventions as 0001.
 *
 * - `buyer_data`: the data one account provided for one payment, validated before it is written,
 *   encrypted (`data`: `v1.<nonce>.<ciphertext‖tag>` of `AtRestCipher`, bound to the payment and
 *   the account); the plaintext is never stored.
 * - `partners.data_collection_threshold`: the partner's threshold in major units of the payment's
 *   currency; `NULL` = the contract's default (1000.00).
 *
 * @module
 */

/** The statements of migration 0005, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE buyer_data (
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    account text COLLATE "C" NOT NULL,
    data text NOT NULL CHECK (data LIKE 'v1.%'),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (payment_id, account)
  )`,
  `ALTER TABLE partners ADD COLUMN data_collection_threshold numeric CHECK (data_collection_threshold >= 0)`
]
