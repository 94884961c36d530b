/**
 * The domain's `WatchedChains` port on EVM chains, with viem: the configured chains that accept an
 * asset, each with its own read client (`TransferLogs.watchedChains`), read through `TransferLogs`,
 * `NativeTransfers` and `LedgerLines`. A failed RPC call is the port's `ChainUnavailable`.
 *
 * @module
 */
import { ChainUnavailable, DepositStore, LedgerBalances, WatchedChains } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { ChainsConfig } from "./ChainConfig.ts"
import { factoryOf } from "./DepositAddresses.ts"
import { linesAt } from "./LedgerLines.ts"
import { nativeTransfersIn } from "./NativeTransfers.ts"
import type { ChainRpcError } from "./RpcCall.ts"
import { blockHash, depositTransfersIn, safeHead, transfersIn, type WatchedChain, watchedChains } from "./TransferLogs.ts"

const unavailable = (error: ChainRpcError) => new ChainUnavailable({ chainId: error.chainId, message: error.message })

/** The port over `chains` (tests give chains with clients of their own); the ledger's lines read the stores in context. */
export const make = (chains: ReadonlyArray<WatchedChain>) =>
  Effect.gen(function*() {
    const ledger = yield* LedgerBalances
    const deposits = yield* DepositStore
    const byId = new Map(chains.map((chain) => [chain.chainId, chain]))
    // A chain the port was not built with is a caller's bug.
    const read = <A>(chainId: string, f: (chain: WatchedChain) => Effect.Effect<A, ChainRpcError>): Effect.Effect<A, ChainUnavailable> => {
      const chain = byId.get(chainId)
      return chain === undefined ? Effect.die(new Error(`${chainId} is not a watched chain`)) : Effect.mapError(f(chain), unavailable)
    }
    return WatchedChains.of({
      chains: chains.map((chain) => ({
        chainId: chain.chainId,
        requiredConfirmations: chain.requiredConfirmations,
        depositAddresses: chain.depositFactories.length > 0
      })),
      safeHead: (chainId) => read(chainId, safeHead),
      blockHash: (chainId, block) => read(chainId, (chain) => blockHash(chain, block)),
      transfersIn: (chainId, from, to) => read(chainId, (chain) => transfersIn(chain, from, to)),
      nativeTransfersIn: (chainId, from, to, watched) =>
        read(chainId, (chain) => {
          if (chain.nativeAsset === undefined) return Effect.succeed([])
          // The coin counts only at addresses whose factory can sweep it (a first-version one cannot).
          const takingCoin = watched.filter((d) => factoryOf(chain.depositFactories, d.paymentId, d.address)?.version === 2)
          return nativeTransfersIn({ ...chain, nativeAsset: chain.nativeAsset }, from, to, takingCoin)
        }),
      depositTransfersIn: (chainId, from, to, watched) => read(chainId, (chain) => depositTransfersIn(chain, watched, from, to)),
      ledgerLinesAt: (chainId, block, depositsSince) =>
        read(chainId, (chain) =>
          linesAt(chain, block, depositsSince).pipe(Effect.provideService(LedgerBalances, ledger), Effect.provideService(DepositStore, deposits)))
    })
  })

/** The port over the configured chains. */
export const layer: Layer.Layer<WatchedChains, never, ChainsConfig | LedgerBalances | DepositStore> = Layer.effect(
  WatchedChains,
  Effect.flatMap(ChainsConfig, (chains) => make(watchedChains(chains)))
)
