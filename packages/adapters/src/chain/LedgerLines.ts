/**
 * The ledger against one chain at one block: every collection and deposit address the ledger keeps,
 * the collection address in each configured token, and every deposit address created since
 * `depositsSince` (a transfer the watcher missed would otherwise never show), each with its balance
 * in the ledger and its `balanceOf` on chain at `block`. Read by the reconciliation job and by the
 * operator's opening of the ledger.
 *
 * @module
 */
import { DepositStore, LedgerBalances, type ReconciliationLine } from "@paygate/domain"
import { Effect } from "effect"
import type { ChainRpcError } from "./RpcCall.ts"
import { tokenBalanceAt, type WatchedChain } from "./TransferLogs.ts"

const tokenOf = (asset: string) => asset.slice(asset.lastIndexOf(":") + 1)

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
    for (const asset of chain.tokens.values()) add("collection", asset, chain.collectionAddress.toLowerCase(), 0n)
    if (chain.depositFactory !== undefined) {
      for (const deposit of yield* (yield* DepositStore).watched(chain.chainId, depositsSince)) {
        for (const asset of chain.tokens.values()) add("deposit", asset, deposit.address.toLowerCase(), 0n)
      }
    }
    for (const account of yield* (yield* LedgerBalances).addressBalances(chain.chainId)) {
      add(account.kind, account.asset, account.address ?? chain.collectionAddress.toLowerCase(), account.held)
    }
    return yield* Effect.forEach([...held.values()], (h) =>
      Effect.map(tokenBalanceAt(chain, tokenOf(h.asset), h.address, block), (onChain): ReconciliationLine => ({
        chainId: chain.chainId,
        asset: h.asset,
        kind: h.kind,
        address: h.address,
        blockNumber: block,
        ledger: h.value,
        chain: onChain
      })), { concurrency: 8 })
  })
