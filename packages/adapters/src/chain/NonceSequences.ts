/**
 * Where a signing account's next nonce is kept between sends, and what serializes "pick nonce →
 * sign → broadcast → remember next" for it. By default in the process (one sender's memory: its
 * permit serializes the section); on PostgreSQL in the database, across every process that signs
 * with the key (`SqlNonceSequences.ts`, provided by `Database.layerUrl`).
 *
 * @module
 */
import { Context, Effect } from "effect"
import type { ChainRpcError } from "./RpcCall.ts"

/** One account's sequence. */
export interface NonceSequence {
  /**
   * Runs `section` as the only holder of the sequence, given the stored next nonce (`undefined`:
   * none stored yet). When `section` succeeds, the next nonce it answers is stored (`undefined`
   * keeps the stored one); when it fails, nothing is stored.
   */
  readonly hold: <A, E>(
    section: (stored: number | undefined) => Effect.Effect<readonly [A, number | undefined], E>
  ) => Effect.Effect<A, E | ChainRpcError>
}

/** Gives the sequence of an account. */
export interface NonceSequencesShape {
  readonly of: (chainId: string, address: string) => NonceSequence
}

/** A sequence in this sender's memory only: its callers already hold the sender's permit. */
export const inProcess: NonceSequencesShape = {
  of: () => {
    let stored: number | undefined
    return {
      hold: (section) =>
        Effect.map(Effect.suspend(() => section(stored)), ([result, next]) => {
          if (next !== undefined) stored = next
          return result
        })
    }
  }
}

/** The sequences senders use; {@link inProcess} unless a database provides shared ones. */
export const NonceSequences = Context.Reference<NonceSequencesShape>("@paygate/adapters/chain/NonceSequences", {
  defaultValue: () => inProcess
})
