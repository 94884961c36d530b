/**
 * Signing accounts' nonce sequences in PostgreSQL (`signer_nonces`), shared by every process that
 * signs with a key: a sender holds the account's row (`SELECT … FOR UPDATE`) in a transaction on a
 * connection of its own for the whole "pick nonce → sign → broadcast → store next" section, so two
 * processes never pick the same nonce. The caller's own queries (e.g. recording the signed
 * transaction before it is broadcast) run on other connections: the pool needs at least two.
 *
 * A process that dies while holding the row leaves nothing behind: its transaction aborts, the lock
 * is released and the stored nonce was not advanced; the next sender takes the larger of it and the
 * node's pending count, which covers a broadcast the node accepted. A database that cannot be
 * reached, or a row held longer than {@link lockTimeout}, fails the send as `unavailable` (retried
 * later, like an RPC that does not answer).
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { NonceSequences, type NonceSequencesShape } from "./chain/NonceSequences.ts"
import { ChainRpcError } from "./chain/RpcCall.ts"

/** Longest wait for another process's section (a broadcast's retries fit in it). */
export const lockTimeout = "60s"

/** Sequences over `sql`. */
export const make = (sql: SqlClient.SqlClient): NonceSequencesShape => ({
  of: (chainId, address) => {
    const unavailable = (error: SqlError) =>
      new ChainRpcError({
        chainId,
        operation: "signer_nonces",
        failure: "unavailable",
        message: `the database holding the nonce sequence of ${address}: ${error.message}`
      })
    return {
      hold: (section) =>
        Effect.scoped(Effect.gen(function*() {
          const connection = yield* Effect.mapError(sql.reserve, unavailable)
          const run = (statement: string, params: ReadonlyArray<unknown> = []) =>
            Effect.mapError(connection.executeUnprepared(statement, params, undefined), unavailable)
          let open = true
          // Interrupted or failed: roll back before the connection goes back to the pool (a dead one is dropped by it).
          yield* Effect.acquireRelease(run("BEGIN"), () => (open ? Effect.ignore(run("ROLLBACK")) : Effect.void))
          yield* run(`SET LOCAL lock_timeout = '${lockTimeout}'`)
          yield* run(`INSERT INTO signer_nonces (chain_id, address) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [chainId, address])
          const rows = yield* run(`SELECT next_nonce FROM signer_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`, [chainId, address])
          const stored: unknown = rows[0]?.next_nonce
          const [result, next] = yield* section(stored === null || stored === undefined ? undefined : Number(stored))
          if (next !== undefined) {
            yield* run(`UPDATE signer_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2`, [chainId, address, next])
          }
          // Once broadcast, the transaction stands: a lost commit only leaves the stored nonce behind the node's.
          yield* run("COMMIT").pipe(
            Effect.tap(() => Effect.sync(() => (open = false))),
            Effect.catch((error) => Effect.logWarning("nonce sequence not stored", { chainId, address, error: error.message }))
          )
          return result
        }))
    }
  }
})

/** The sequences over the `SqlClient`. */
export const layer = Layer.effect(
  NonceSequences,
  Effect.gen(function*() {
    return make(yield* SqlClient.SqlClient)
  })
)
