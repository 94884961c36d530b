/**
 * Migration 0032: the next nonce of each signing account, shared by every process that signs with
 * it. A sender locks its row for "pick nonce → sign → broadcast → store next" (`SqlNonceSequences.ts`);
 * `next_nonce` is null until the first send stores one.
 *
 * @module
 */

/** The statements of migration 0032, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE signer_nonces (
    chain_id text NOT NULL,
    address text NOT NULL,
    next_nonce bigint,
    PRIMARY KEY (chain_id, address)
  )`
]
