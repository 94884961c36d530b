/**
 * Migration 0017: dashboard sign-in attempts (`SignInThrottleStore`), one token bucket per client
 * (its address, an IPv6 client's /64) and one for everyone, in the database so every API process
 * counts the same attempts. `full_at`: when the bucket is full again; rows past it are forgotten.
 *
 * @module
 */

/** The statements of migration 0017, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE sign_in_attempts (
    client text COLLATE "C" PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_at bigint NOT NULL,
    full_at bigint NOT NULL
  )`,
  `CREATE INDEX sign_in_attempts_full ON sign_in_attempts (full_at)`
]
