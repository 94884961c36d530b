/**
 * The worker's chain watcher for tests over a test server's database (its own use cases, as in a
 * worker process), polling every 50 ms with a short lease and reading a new chain from its first
 * block (other tunables as a test asks); the chains as it reads them (`WatchedChains`); and what
 * the watcher tests do to the local chain.
 */
import { Chain, SqlPersistence, SqlQuoteStore } from "@paygate/adapters"
import { IdGenerator, ReceiptReversals, Reconciliation, WatchedChains } from "@paygate/domain"
import { chainWatcher, defaultWatcherSettings, WatcherSettings, type WatcherSettingsShape } from "@paygate/worker"
import { Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import type { LocalChainWorld } from "./LocalChainWorld.ts"

/**
 * The worker's `WatchedChains` port over `chains` (over the ledger and deposit stores in context);
 * `watched` replaces how it reads them (a test's own client).
 */
export const watchedChainsOf = (
  chains: Chain.ChainConfig.Chains,
  watched: ReadonlyArray<Chain.TransferLogs.WatchedChain> = Chain.TransferLogs.watchedChains(chains)
) => Layer.effect(WatchedChains, Chain.ViemWatchedChains.make(watched))

/**
 * The watcher over `chains`, forked into the layer's scope (with their modes, as a worker has them: the
 * ledger posts per mode); `watched` replaces how it reads them (a test's own client).
 */
export const watcherJob = (
  chains: Chain.ChainConfig.Chains,
  tuning: Partial<WatcherSettingsShape> = {},
  watched: ReadonlyArray<Chain.TransferLogs.WatchedChain> = Chain.TransferLogs.watchedChains(chains)
) =>
  Layer.effectDiscard(Effect.forkScoped(Effect.flatMap(WatchedChains, (reads) => chainWatcher(reads.chains)))).pipe(
    Layer.provide(Layer.mergeAll(Reconciliation.layer, ReceiptReversals.layer, watchedChainsOf(chains, watched))),
    Layer.provide(Chain.ChainNetworkModes.layer.pipe(Layer.provide(Layer.succeed(Chain.ChainConfig.ChainsConfig, chains)))),
    Layer.provide(Layer.mergeAll(SqlPersistence.layer, SqlQuoteStore.layer, IdGenerator.layer)),
    Layer.provide(SecureRandom.layerWebCrypto),
    Layer.provide(Layer.succeed(WatcherSettings, { ...defaultWatcherSettings, pollIntervalMs: 50, leaseMs: 1_500, lookbackBlocks: 100_000, ...tuning }))
  )

/** The local chain's settings with `confirmations`, its token offered for pull payments (`eip3009`) or push ones. */
export const watchedSettings = (world: LocalChainWorld, confirmations: number, eip3009: boolean) => {
  const base = world.settings()
  return {
    chains: base.chains.map((c) => ({ ...c, requiredConfirmations: confirmations })),
    assets: base.assets.map((a) => ({ ...a, eip3009 }))
  }
}

/** A JSON-RPC call straight to anvil (`anvil_mine`, `anvil_reorg`, `evm_snapshot`, …). */
export const anvilRpc = (world: LocalChainWorld, method: string, params: ReadonlyArray<unknown> = []) =>
  world.client.request({ method: method as never, params: params as never }) as Promise<unknown>
