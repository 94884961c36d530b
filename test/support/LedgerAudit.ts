/**
 * The ledger's audit after a test over real processes: the reconciliation of every configured chain
 * (ledger = chain at every collection and deposit address, at the confirmed head) and every ledger
 * transaction balanced per token. The ledger trails the chain by the watcher's poll, so the
 * reconciliation is retried until it agrees or `timeoutMs` passes; the last run is answered.
 */
import { Chain, SqlPersistence } from "@paygate/adapters"
import { WatchedChains } from "@paygate/domain"
import { defaultWatcherSettings, reconcileChain, WatcherSettings } from "@paygate/worker"
import { Effect, type Layer } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "./Eventually.ts"
import { watchedChainsOf } from "./WatcherJob.ts"

/**
 * One run of the ledger's reconciliation over each chain of `chains` at its confirmed head
 * (`reconcileChain`, as the worker runs it, with the watcher's default settings), over the stores
 * in context; its lines.
 */
export const reconcileChains = (chains: Chain.ChainConfig.Chains) =>
  Effect.flatMap(WatchedChains, (reads) => Effect.forEach(reads.chains, reconcileChain)).pipe(
    Effect.map((lines) => lines.flat()),
    Effect.provide(watchedChainsOf(chains)),
    Effect.provideService(WatcherSettings, defaultWatcherSettings)
  )

/** What disagrees: addresses whose ledger balance is not the chain's, and unbalanced transactions (none when all is well). */
export interface LedgerAudit {
  /** How many address-and-token lines were compared. */
  readonly compared: number
  readonly differing: ReadonlyArray<string>
  readonly unbalanced: ReadonlyArray<string>
}

/** Audits the ledger in `database` against the chains of `settings` (as `PAYGATE_CHAINS` has them). */
export const auditLedger = (database: Layer.Layer<SqlClient.SqlClient, unknown>, settings: unknown, timeoutMs = 30_000): Promise<LedgerAudit> => {
  const once = Effect.gen(function*() {
    const chains = yield* Chain.ChainConfig.decode(settings)
    const lines = yield* reconcileChains(chains)
    const sql = yield* SqlClient.SqlClient
    const unbalanced = yield* sql<{ readonly id: string; readonly asset: string }>`SELECT transaction_id::text AS id, asset
      FROM ledger_entries GROUP BY transaction_id, asset HAVING sum(amount) <> 0`
    return {
      compared: lines.length,
      differing: lines.filter((l) => l.chain !== l.ledger)
        .map((l) => `${l.kind} ${l.address} holds ${l.chain} of ${l.asset} at block ${l.blockNumber}; the ledger says ${l.ledger}`),
      unbalanced: unbalanced.map((row) => `ledger transaction ${row.id} does not balance in ${row.asset}`)
    }
  }).pipe(Effect.provide(SqlPersistence.layer), Effect.provide(database), Effect.orDie)
  const run = () => Effect.runPromise(once)
  return eventually(run, (audit) => audit.differing.length === 0 && audit.unbalanced.length === 0, timeoutMs).catch(run)
}
