/**
 * Opening the ledger on a chain whose addresses held tokens before the ledger saw them (a
 * deployment that collected before the ledger existed): per address and token, what the chain
 * holds beyond the ledger is posted once, against the operator's `opening` account, in the mode of
 * that address (docs/ledger.md).
 *
 * Both sides are read at the block the chain watcher has read up to, with its cursor held (`FOR
 * SHARE`) until the postings commit: a transfer the watcher has not recorded yet is neither in the
 * ledger nor in the chain balance, so it is never counted twice. A negative difference (the ledger
 * holds more) is never posted: it is a possible loss to investigate, not an opening balance.
 *
 * @module
 */
import { openingPostings, type ReconciliationLine } from "@paygate/domain"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { linesAt } from "./chain/LedgerLines.ts"
import type { WatchedChain } from "./chain/TransferLogs.ts"
import { modeOfArrival, post } from "./internal/LedgerWrites.ts"
import { toIntOrNull } from "./internal/Rows.ts"

/** The chain watcher has not read the chain yet: there is no block at which the ledger is complete. */
export class LedgerNotWatched extends Schema.TaggedError<LedgerNotWatched>()("LedgerNotWatched", {
  message: Schema.String
}) {}

/** What the opening did at one address and token. */
export type OpeningOutcome = "agrees" | "opened" | "opened before" | "ledger holds more"

/** One address and token: its reconciliation line at the watcher's block, what was posted, and why. */
export interface OpeningLine extends ReconciliationLine {
  readonly outcome: OpeningOutcome
  /** Base units posted to the address (0 unless `opened`). */
  readonly opened: bigint
}

/** Opens the ledger of `chain` (see the module documentation); answers one line per address and token. */
export const openChain = (chain: WatchedChain) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cursor = yield* sql<{ readonly next_block: unknown }>`SELECT next_block FROM chain_cursors
      WHERE chain_id = ${chain.chainId} FOR SHARE`.pipe(Effect.orDie)
    const next = toIntOrNull(cursor[0]?.next_block ?? null)
    if (next === null || next < 1) {
      return yield* new LedgerNotWatched({
        message: `The worker has not read ${chain.chainId} yet: start it, let it catch up, then open the ledger.`
      })
    }
    const lines = yield* linesAt(chain, next - 1, 0)
    return yield* Effect.forEach(lines, (line) =>
      Effect.gen(function*() {
        const difference = line.chain - line.ledger
        if (difference === 0n) return { ...line, outcome: "agrees" as const, opened: 0n }
        if (difference < 0n) return { ...line, outcome: "ledger holds more" as const, opened: 0n }
        const sourceId = `${line.asset}|${line.address}`
        const before = yield* sql`SELECT 1 FROM ledger_transactions WHERE source = 'opening' AND source_id = ${sourceId}`
        if (before.length > 0) return { ...line, outcome: "opened before" as const, opened: 0n }
        const deposit = line.kind === "deposit" ? line.address : null
        const mode = yield* modeOfArrival(sql, { mode: null, id: sourceId, chainId: chain.chainId }, deposit)
        const at = deposit === null ? { kind: "collection" as const } : { kind: "deposit" as const, address: deposit }
        yield* post(sql, mode, "opening", sourceId, openingPostings(line.asset, at, difference))
        return { ...line, outcome: "opened" as const, opened: difference }
      }).pipe(Effect.orDie))
  }).pipe(
    (opening) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(opening)),
    Effect.catchTag("SqlError", Effect.die)
  )
