/**
 * Migration 0003: the quotes handed out as payment options (API rules §10). Same conventions as
 * 0001: ids `text COLLATE "C"`, times in Unix milliseconds (`bigint`).
 *
 * - `option_id`: the signed option id (issued by this service, so of bounded length).
 * - `claims`: the option's claims (`OptionClaims`) as JSON, the nonce chosen with the quote included.
 * - `seq`: insertion order, breaking ties between quotes saved in the same millisecond, so that
 *   "the latest quote for (payment, account, asset)" is always one row (`quotes_latest`).
 *
 * @module
 */

/** The statements of migration 0003, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE quotes (
    option_id text COLLATE "C" PRIMARY KEY,
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    account text COLLATE "C" NOT NULL,
    asset text COLLATE "C" NOT NULL,
    claims jsonb NOT NULL,
    created_at bigint NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY
  )`,
  `CREATE INDEX quotes_latest ON quotes (payment_id, account, asset, created_at DESC, seq DESC)`
]
