/**
 * The ledger's reconciliation against the chain (docs/ledger.md): per chain, at its newest
 * confirmed block, every collection and deposit address the ledger keeps (and the collection
 * address in each configured token) is read on chain (`balanceOf` at that block) and compared with
 * its balance in the ledger. Each run is recorded (`paygate-admin ledger report` prints the latest).
 *
 * The ledger trails the chain by a moment (the watcher reads confirmed blocks every few seconds),
 * so a difference alerts only when the same address differs by the same amount in two runs
 * running: one error line per address, and `paygate_ledger_differences` counts them. The chains are
 * read through the domain's `WatchedChains` port.
 *
 * @module
 */
import { ProcessMetrics } from "@paygate/observability"
import { LedgerBalances, type ReconciliationLine, type WatchedChain, WatchedChains } from "@paygate/domain"
import { Clock, Context, Effect, Layer, Metric } from "effect"
import { WatcherSettings } from "./ChainWatcher.ts"
import { forever } from "./Forever.ts"

/** Tunables of the reconciliation job. */
export interface LedgerReconciliationSettingsShape {
  /** Pause between runs. */
  readonly intervalMs: number
}

/** Every five minutes by default. */
export const LedgerReconciliationSettings = Context.Reference<LedgerReconciliationSettingsShape>(
  "@paygate/worker/LedgerReconciliationSettings",
  { defaultValue: () => ({ intervalMs: 300_000 }) }
)

const keyOf = (line: ReconciliationLine) => `${line.asset}|${line.address}`

/** One run over `chain` at its newest confirmed block: its lines (`WatchedChains.ledgerLinesAt`), recorded. */
export const reconcileChain = (chain: WatchedChain) =>
  Effect.gen(function*() {
    const reads = yield* WatchedChains
    const block = yield* reads.safeHead(chain.chainId)
    const since = (yield* Clock.currentTimeMillis) - (yield* WatcherSettings).depositWatchMs
    const lines = yield* reads.ledgerLinesAt(chain.chainId, block, since)
    yield* (yield* LedgerBalances).recordReconciliation(yield* Clock.currentTimeMillis, lines)
    return lines
  })

/** The job: a run per chain every `intervalMs`, alerting on differences two runs running (see the module documentation). */
export const ledgerReconciliation = (chains: ReadonlyArray<WatchedChain>) =>
  Effect.gen(function*() {
    const settings = yield* LedgerReconciliationSettings
    const ledger = yield* LedgerBalances
    const reads = yield* WatchedChains
    const watcher = yield* WatcherSettings
    // The differences of each chain's previous run: address and token → what the chain held beyond the ledger.
    const previous = new Map<string, Map<string, bigint>>()
    const round = Effect.forEach(chains, (chain) =>
      Effect.gen(function*() {
        const lines = yield* reconcileChain(chain)
        const before = previous.get(chain.chainId) ?? new Map<string, bigint>()
        const now = new Map(lines.filter((l) => l.chain !== l.ledger).map((l) => [keyOf(l), l.chain - l.ledger] as const))
        const lasting = lines.filter((l) => now.has(keyOf(l)) && before.get(keyOf(l)) === now.get(keyOf(l)))
        for (const l of lasting) {
          yield* Effect.logError(
            `ledger: ${l.kind} address ${l.address} holds ${l.chain} of ${l.asset} at block ${l.blockNumber}; the ledger says ${l.ledger} (difference ${l.chain - l.ledger})`
          )
        }
        previous.set(chain.chainId, now)
        yield* Metric.update(ProcessMetrics.ledgerDifferences(chain.chainId), lasting.length)
      }).pipe(
        Effect.catchTag("ChainUnavailable", (error) => Effect.logWarning(`ledger: ${chain.chainId} not reconciled: ${error.message}`)),
        Effect.annotateLogs({ chainId: chain.chainId })
      ), { discard: true }).pipe(Effect.as(false))
    return yield* forever(
      "ledger reconciliation",
      round.pipe(Effect.provideService(LedgerBalances, ledger), Effect.provideService(WatchedChains, reads), Effect.provideService(WatcherSettings, watcher)),
      settings.intervalMs
    )
  })

/** The reconciliation over the watched chains, forked into the layer's scope (nothing to do without chains). */
export const LedgerReconciliationJob: Layer.Layer<never, never, WatcherSettings | WatchedChains | LedgerBalances> = Layer.effectDiscard(
  Effect.gen(function*() {
    const { chains } = yield* WatchedChains
    if (chains.length === 0) return
    yield* Effect.forkScoped(ledgerReconciliation(chains))
    yield* Effect.logInfo("worker started: ledger reconciliation")
  })
)
