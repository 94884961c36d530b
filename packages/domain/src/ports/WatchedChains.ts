import { Context, type Effect } from "effect"
import type { ObservedTransfer } from "../receipt/Receipt.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { DepositAddress } from "./DepositStore.ts"
import type { ReconciliationLine } from "./LedgerBalances.ts"

/** One chain the chain watcher follows. */
export interface WatchedChain {
  /** CAIP-2 chain id. */
  readonly chainId: string
  /** Blocks a transfer needs (the including block counts as one) before the watcher reads it. */
  readonly requiredConfirmations: number
  /** Whether the chain has deposit factories: transfers into the deposit addresses the watcher follows are read too. */
  readonly depositAddresses: boolean
}

/**
 * The configured chains that accept at least one asset, and what the chain watcher and the ledger's
 * reconciliation read of them: only what the chain says, never what the service recorded. Blocks
 * are numbered, hashes lower-case; a chain that cannot be read fails with `ChainUnavailable`, and
 * the caller reads again later.
 */
export class WatchedChains extends Context.Service<WatchedChains, {
  /** The chains, in configuration order. */
  readonly chains: ReadonlyArray<WatchedChain>
  /** The newest block of `chainId` with its required confirmations; -1 when none has them yet. */
  readonly safeHead: (chainId: string) => Effect.Effect<number, ChainUnavailable>
  /** The hash of block `block` as the chain has it now. */
  readonly blockHash: (chainId: string, block: number) => Effect.Effect<string, ChainUnavailable>
  /**
   * The transfers of the accepted tokens into the collection address in blocks `from`..`to`
   * (inclusive), in chain order, each with the reference it carried (else `null`); sweeps of
   * deposit addresses are left out (what they move was read when it reached the deposit address).
   */
  readonly transfersIn: (chainId: string, from: number, to: number) => Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainUnavailable>
  /**
   * The transfers of the chain's own coin in blocks `from`..`to` (inclusive), in chain order: into
   * the collection address, and into those of `deposits` whose factory sweeps the coin; none where
   * the chain's coin is not accepted.
   */
  readonly nativeTransfersIn: (
    chainId: string,
    from: number,
    to: number,
    deposits: ReadonlyArray<DepositAddress>
  ) => Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainUnavailable>
  /**
   * The transfers of any token into `deposits` (deposit addresses of the chain) in blocks
   * `from`..`to` (inclusive), each naming its deposit; a token the chain does not accept is `unlisted`.
   */
  readonly depositTransfersIn: (
    chainId: string,
    from: number,
    to: number,
    deposits: ReadonlyArray<DepositAddress>
  ) => Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainUnavailable>
  /**
   * The ledger against the chain at `block`: every collection and deposit address the ledger keeps,
   * the collection address in each accepted token and the deposit addresses followed since
   * `depositsSince` (Unix milliseconds), each with its balance in the ledger and on chain.
   */
  readonly ledgerLinesAt: (chainId: string, block: number, depositsSince: number) => Effect.Effect<ReadonlyArray<ReconciliationLine>, ChainUnavailable>
}>()("@paygate/domain/WatchedChains") {}
