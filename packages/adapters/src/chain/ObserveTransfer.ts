/**
 * Where a transaction stands as a transfer to a recipient ({@link transferStanding}, shared with
 * payouts), and a payment's transaction as the domain's `ChainOutcome`:
 *
 * - `pending`: not mined yet (and in the node's pool), or mined with fewer than the chain's
 *   `requiredConfirmations` (the including block counts as one), or its block has just been
 *   reorganised away.
 * - `dropped`: not mined, and the node does not have it: another transaction of its sender took its
 *   nonce, the node's pool let it go, or a reorganisation removed it. The executor then reads its
 *   nonce from the node again (`ExecutorSender.resync`).
 * - `succeeded`: final, status success, and a `Transfer` event of the asset's token pays the chain's
 *   collection address (or the payment's deposit address); for the native asset, the transaction
 *   itself sends value there.
 * - `failed`: final and reverted, or final but paying nothing to the collection address.
 * - `unknown`: the chain could not be asked (RPC error, timeout) or the asset is not configured. Never
 *   reported as `failed`: an unknown outcome keeps the payment `processing`.
 *
 * @module
 */
import type { ChainOutcome } from "@paygate/domain"
import { Duration, Effect } from "effect"
import {
  type Address,
  type Hash,
  type Hex,
  parseEventLogs,
  parseTransaction,
  type TransactionReceipt,
  TransactionReceiptNotFoundError
} from "viem"
import { type Chains, lookupAsset } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { isKnown } from "./KnownTransaction.ts"
import { isNativeToken } from "./NativeAsset.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"

/** What {@link observeTransfer} works with. */
export interface ObserveContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
  /** Bound on one observation (all its RPC calls); default 15 seconds. */
  readonly timeout?: Duration.Input | undefined
}

/** Whether `text` is a transaction hash: 32 bytes of hex. */
export const isTxHash = (text: string): text is Hash => /^0x[0-9a-fA-F]{64}$/.test(text)

/** Whether the receipt carries a `Transfer` event of `token` to `recipient` with a positive value. */
const paysRecipient = (receipt: TransactionReceipt, token: string, recipient: string): boolean =>
  parseEventLogs({ abi: eip3009TokenAbi, eventName: "Transfer", logs: receipt.logs }).some((log) =>
    sameAddress(log.address, token) && sameAddress(log.args.to, recipient) && log.args.value > 0n
  )

/** The chain a transaction is observed on: its client and required confirmations. */
export type ObservedChain = Pick<ChainRuntime, "chainId" | "client" | "settings">

/**
 * Where a transaction stands: `unmined` (no receipt), `confirming` (mined with fewer than the
 * required confirmations, or in a block since reorganised away), or final: `succeeded` (it paid
 * `recipient` in `token`), `reverted`, or `unpaid` (included, not reverted, paying nothing to
 * `recipient`).
 */
export type TransferStanding = "unmined" | "confirming" | "succeeded" | "reverted" | "unpaid"

/** Where `hash` stands as a transfer of `token` to `recipient`; see {@link TransferStanding}. */
export const transferStanding = (
  chain: ObservedChain,
  token: string,
  recipient: string,
  hash: Hash
): Effect.Effect<TransferStanding, ChainRpcError> =>
  receiptStanding(chain, hash, (receipt) => {
    if (!isNativeToken(token)) return Effect.succeed(paysRecipient(receipt, token, recipient))
    // A native transfer leaves no log: the transaction itself must send value to the recipient.
    return Effect.map(
      rpc(chain.chainId, "eth_getTransactionByHash", () => chain.client.getTransaction({ hash })),
      (tx) => tx.to !== null && sameAddress(tx.to, recipient) && tx.value > 0n
    )
  })

/**
 * Where `hash` stands, `paid` telling whether its successful, confirmed receipt paid what was
 * meant; see {@link TransferStanding}.
 */
export const receiptStanding = (
  chain: ObservedChain,
  hash: Hash,
  paid: (receipt: TransactionReceipt) => Effect.Effect<boolean, ChainRpcError>
): Effect.Effect<TransferStanding, ChainRpcError> =>
  Effect.gen(function*() {
    const { chainId, client, settings } = chain
    const receipt = yield* rpc(chainId, "eth_getTransactionReceipt", () =>
      client.getTransactionReceipt({ hash }).catch((error: unknown) => {
        if (error instanceof TransactionReceiptNotFoundError) return undefined
        throw error
      }))
    if (receipt === undefined) return "unmined"
    const head = yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
    if (head - receipt.blockNumber + 1n < BigInt(settings.requiredConfirmations)) return "confirming"
    // The receipt may predate a reorganisation: the block must still be the canonical one. The block
    // completing the depth is read too: with several providers, a quorum of them must have it alike,
    // so that one provider ahead of the others cannot count the confirmations alone.
    const depthBlock = receipt.blockNumber + BigInt(settings.requiredConfirmations - 1)
    const [block] = yield* Effect.all(
      [...new Set([receipt.blockNumber, depthBlock])].map((blockNumber) =>
        rpc(chainId, "eth_getBlockByNumber", () => client.getBlock({ blockNumber }))),
      { concurrency: "unbounded" }
    )
    if (block!.hash !== receipt.blockHash) return "confirming"
    if (receipt.status !== "success") return "reverted"
    return (yield* paid(receipt)) ? "succeeded" : "unpaid"
  })

/**
 * Whether `sender`'s nonce at the confirmed depth has passed the nonce of the signed transaction
 * `raw`: some transaction of `sender` took it, so `raw`, if it has no receipt, can never be included.
 */
export const nonceTaken = (chain: ObservedChain, sender: Address, raw: Hex): Effect.Effect<boolean, ChainRpcError> =>
  Effect.gen(function*() {
    const { chainId, client, settings } = chain
    const nonce = parseTransaction(raw).nonce ?? 0
    const head = yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
    const depth = BigInt(settings.requiredConfirmations - 1)
    const confirmed = head > depth ? head - depth : 0n
    const used = yield* rpc(chainId, "eth_getTransactionCount", () => client.getTransactionCount({ address: sender, blockNumber: confirmed }))
    return used > nonce
  })

/** The domain's outcome of `hash` from `standing`, where it stands (see the module documentation). */
const outcomeOf = (runtime: ChainRuntime, hash: Hash, standing: Effect.Effect<TransferStanding, ChainRpcError>): Effect.Effect<ChainOutcome, ChainRpcError> =>
  Effect.flatMap(standing, (standing) => {
    switch (standing) {
      case "unmined":
        // No receipt: on its way while the node has it; dropped once it does not. The executor's nonce
        // is read again then: a dropped transaction of its own left a gap in its sequence.
        return Effect.flatMap(isKnown(runtime, hash), (known) => (known ? Effect.succeed("pending" as const) : Effect.as(runtime.executor.resync, "dropped" as const)))
      case "confirming":
        return Effect.succeed("pending")
      case "succeeded":
        return Effect.succeed("succeeded")
      case "reverted":
      case "unpaid":
        return Effect.succeed("failed")
    }
  })

/**
 * Observes `txHash` (a transaction paying `asset`, CAIP-19, to the collection address, or to
 * `recipient`, a CAIP-10 deposit address, when given); see the module documentation.
 */
export const observeTransfer = (
  context: ObserveContext,
  asset: string,
  txHash: string,
  recipient?: string
): Effect.Effect<ChainOutcome> => {
  const found = lookupAsset(context.chains, asset)
  const runtime = found === undefined ? undefined : context.runtimes.get(found.chain.chainId)
  if (found === undefined || runtime === undefined || !isTxHash(txHash)) {
    return Effect.logWarning(`observe: ${asset} is not a configured asset or ${txHash} is not a transaction hash`).pipe(
      Effect.as("unknown" as const)
    )
  }
  const to = recipient === undefined ? runtime.settings.collectionAddress : recipient.slice(recipient.lastIndexOf(":") + 1)
  return observeStanding(runtime, txHash, transferStanding(runtime, found.token, to, txHash), context.timeout, "ChainGateway.observe")
}

/**
 * Observes `hash` from `standing`, where it stands (a transfer's, or a contract call's): bounded by
 * `timeout` (default 15 seconds), and `unknown` when the chain could not be asked; traced as `span`.
 */
export const observeStanding = (
  runtime: ChainRuntime,
  hash: Hash,
  standing: Effect.Effect<TransferStanding, ChainRpcError>,
  timeout: Duration.Input | undefined,
  span: string
): Effect.Effect<ChainOutcome> =>
  outcomeOf(runtime, hash, standing).pipe(
    Effect.timeout(Duration.fromInputUnsafe(timeout ?? Duration.seconds(15))),
    Effect.catch((error) =>
      Effect.logWarning(`observe ${hash} on ${runtime.chainId}: outcome unknown (${error.message})`).pipe(
        Effect.as("unknown" as const)
      )
    ),
    Effect.withSpan(span, { attributes: { chainId: runtime.chainId, txHash: hash } })
  )
