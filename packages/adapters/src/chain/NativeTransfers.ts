/**
 * Reading a chain's native transfers into its collection address, and into the deposit addresses
 * that take the coin, for reconciliation. They leave no `Transfer` log, so the watcher reads each
 * block of the range with its transactions: every successful transaction sending value to the
 * collection address is a transfer, its reference the 16 bytes of calldata a native option asks
 * for (`NativeAsset.ts`), else none; one sending value to a deposit address is a transfer to that
 * deposit (it needs no reference). Only top-level transactions are seen: value forwarded by a
 * contract's internal call is not (a wallet paying a native option sends it directly; what a
 * contract forwards to a deposit address shows as a difference in the ledger's reconciliation,
 * docs/ledger.md).
 *
 * A transaction is one transfer, and it has no log index: it takes {@link nativeLogIndex}, which no
 * log of a block can have, so that receipts stay unique per (chain, transaction, index).
 *
 * @module
 */
import type { ObservedTransfer } from "@paygate/domain"
import { Effect } from "effect"
import { getAddress } from "viem"
import { sameAddress } from "./EvmAddress.ts"
import { isReference } from "./PushTransfer.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"
import type { WatchedChain } from "./TransferLogs.ts"

/** The index a native transfer is recorded under (the largest a receipt's index column holds). */
export const nativeLogIndex = 2_147_483_647

/** Blocks read at once. */
const blocksInFlight = 8

/**
 * The native transfers into the collection address of `chain` (which must have a native asset),
 * and into `deposits` (deposit addresses that take the coin), in blocks `from`..`to` (inclusive),
 * in chain order.
 */
export const nativeTransfersIn = (
  chain: WatchedChain & { readonly nativeAsset: string },
  from: number,
  to: number,
  deposits: ReadonlyArray<{ readonly address: string; readonly paymentId: string }>
): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  Effect.gen(function*() {
    const { chainId, client } = chain
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i))
    const blocks = yield* Effect.forEach(
      numbers,
      (blockNumber) => rpc(chainId, "eth_getBlockByNumber", () => client.getBlock({ blockNumber, includeTransactions: true })),
      { concurrency: blocksInFlight }
    )
    const payments = new Map(deposits.map((d) => [d.address.toLowerCase(), d.paymentId]))
    const found: Array<ObservedTransfer> = []
    for (const block of blocks) {
      for (const tx of block.transactions) {
        if (tx.to === null || tx.value === 0n) continue
        const paymentId = payments.get(tx.to.toLowerCase())
        if (paymentId === undefined && !sameAddress(tx.to, chain.collectionAddress)) continue
        const receipt = yield* rpc(chainId, "eth_getTransactionReceipt", () => client.getTransactionReceipt({ hash: tx.hash }))
        // A reverted transaction moved nothing.
        if (receipt.status !== "success") continue
        found.push({
          chainId,
          asset: chain.nativeAsset,
          txHash: tx.hash.toLowerCase(),
          logIndex: nativeLogIndex,
          blockNumber: Number(block.number),
          blockHash: block.hash.toLowerCase(),
          blockTime: Number(block.timestamp),
          from: `${chainId}:${getAddress(tx.from)}`,
          value: tx.value,
          ...(paymentId === undefined
            ? { reference: isReference(tx.input) ? tx.input.toLowerCase() : null }
            : { reference: null, deposit: { paymentId, account: `${chainId}:${getAddress(tx.to)}` } })
        })
      }
    }
    return found
  })
