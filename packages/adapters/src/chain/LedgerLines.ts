/**
 * The ledger against one chain at one block: every collection and deposit address the ledger keeps,
 * the collection address in each configured token, and every deposit address created since
 * `depositsSince` (a transfer the watcher missed would otherwise never show) in each token and,
 * where the native asset is accepted and its factory sweeps it, the chain's own coin; each with its
 * balance in the ledger and on chain at `block` (`balanceOf`, or the account's balance). Read by
 * the reconciliation job and by the operator's opening of the ledger.
 *
 * @module
 */
import { DepositStore, LedgerBalances, type ReconciliationLine } from "@paygate/domain"
import { Effect } from "effect"
import type { ChainRpcError } from "./RpcCall.ts"
import { factoryOf } from "./DepositAddresses.ts"
import { isNativeAssetId } from "./NativeAsset.ts"
import { nativeBalanceAt, tokenBalanceAt, type WatchedChain } from "./TransferLogs.ts"

/** What `holder` held of `asset` (a token, or the chain's own coin) at block `n`. */
export const balanceAt = (chain: WatchedChain, asset: string, holder: string, n: number) =>
  isNativeAssetId(asset) ? nativeBalanceAt(chain, holder, n) : tokenBalanceAt(chain, asset.slice(asset.lastIndexOf(":") + 1), holder, n)

/** The lines of `chain` at `block` (see the module documentation). */
export const linesAt = (
  chain: WatchedChain,
  block: number,
  depositsSince: number
): Effect.Effect<ReadonlyArray<ReconciliationLine>, ChainRpcError, LedgerBalances | DepositStore> =>
  Effect.gen(function*() {
    const held = new Map<string, { kind: "collection" | "deposit"; asset: string; address: string; value: bigint }>()
    const add = (kind: "collection" | "deposit", asset: string, address: string, value: bigint) => {
      const key = `${asset}|${address}`
      held.set(key, { kind, asset, address, value: (held.get(key)?.value ?? 0n) + value })
    }
    const coin = chain.nativeAsset === undefined ? [] : [chain.nativeAsset]
    for (const asset of chain.tokens.values()) add("collection", asset, chain.collectionAddress.toLowerCase(), 0n)
    if (chain.depositFactories.length > 0) {
      for (const deposit of yield* (yield* DepositStore).watched(chain.chainId, depositsSince)) {
        // The coin is kept at the addresses whose factory sweeps it.
        const takesCoin = factoryOf(chain.depositFactories, deposit.paymentId, deposit.address)?.version === 2
        for (const asset of [...chain.tokens.values(), ...(takesCoin ? coin : [])]) add("deposit", asset, deposit.address.toLowerCase(), 0n)
      }
    }
    for (const account of yield* (yield* LedgerBalances).addressBalances(chain.chainId)) {
      add(account.kind, account.asset, account.address ?? chain.collectionAddress.toLowerCase(), account.held)
    }
    return yield* Effect.forEach([...held.values()], (h) =>
      Effect.map(balanceAt(chain, h.asset, h.address, block), (onChain): ReconciliationLine => ({
        chainId: chain.chainId,
        asset: h.asset,
        kind: h.kind,
        address: h.address,
        blockNumber: block,
        ledger: h.value,
        chain: onChain
      })), { concurrency: 8 })
  })
