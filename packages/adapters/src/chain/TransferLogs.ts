/**
 * Reading a chain for reconciliation: the ERC-20 `Transfer` logs of the configured tokens into the
 * chain's collection address (and into payments' deposit addresses), in a block range, each with the reference its transaction carried
 * (the 16 bytes after a push payment's `transfer`, or the nonce of an EIP-3009
 * `transferWithAuthorization`). Only blocks with the chain's required confirmations are read
 * ({@link safeHead}); the watcher compares block hashes to notice a deeper reorganisation.
 *
 * @module
 */
import type { ObservedTransfer } from "@paygate/domain"
import { Effect, Option } from "effect"
import { type Address, decodeFunctionData, getAddress, type Hash, type Hex, type PublicClient } from "viem"
import { type Chains } from "./ChainConfig.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { decodeTransferWithReference } from "./PushTransfer.ts"
import { ChainRpcError, makeClient, rpc } from "./RpcCall.ts"

/** One chain as the watcher reads it. */
export interface WatchedChain {
  /** CAIP-2. */
  readonly chainId: string
  readonly client: PublicClient
  readonly collectionAddress: Address
  readonly requiredConfirmations: number
  /** Token address (lower-case) → CAIP-19 asset id. */
  readonly tokens: ReadonlyMap<string, string>
  /** The chain's deposit factory, when it offers deposit addresses (their transfers are read too). */
  readonly depositFactory: Address | undefined
}

/** The configured chains that accept at least one token, each with its own read client. */
export const watchedChains = (chains: Chains): ReadonlyArray<WatchedChain> =>
  chains.settings.chains.flatMap((chain) => {
    const tokens = new Map(
      chains.settings.assets
        .filter((asset) => asset.assetId.startsWith(`${chain.chainId}/`))
        .map((asset) => [asset.assetId.slice(asset.assetId.lastIndexOf(":") + 1).toLowerCase(), asset.assetId] as const)
    )
    if (tokens.size === 0) return []
    return [{
      chainId: chain.chainId,
      client: makeClient(chain.rpcUrl),
      collectionAddress: chain.collectionAddress as Address,
      requiredConfirmations: chain.requiredConfirmations,
      tokens,
      depositFactory: chain.depositFactory as Address | undefined
    }]
  })

/** The newest block with the required confirmations (the including block counts as one); -1 when none yet. */
export const safeHead = (chain: WatchedChain): Effect.Effect<number, ChainRpcError> =>
  Effect.map(
    rpc(chain.chainId, "eth_blockNumber", () => chain.client.getBlockNumber({ cacheTime: 0 })),
    (head) => Number(head) - chain.requiredConfirmations + 1
  )

/** The hash of block `n` as the chain has it now. */
export const blockHash = (chain: WatchedChain, n: number): Effect.Effect<string, ChainRpcError> =>
  Effect.map(
    rpc(chain.chainId, "eth_getBlockByNumber", () => chain.client.getBlock({ blockNumber: BigInt(n) })),
    (block) => block.hash.toLowerCase()
  )

const isHex32 = (text: string) => /^0x[0-9a-f]{64}$/.test(text)

/** The reference a transaction carried for a transfer of `value` from `from`; see the module documentation. */
const referenceOf = (input: Hex, token: string, to: string | null, from: string, value: bigint, collection: string): string | null => {
  if (to === null || !sameAddress(to, token)) return null
  const push = decodeTransferWithReference(input)
  if (Option.isSome(push)) {
    return sameAddress(push.value.to, collection) && push.value.value === value ? push.value.reference : null
  }
  try {
    const call = decodeFunctionData({ abi: eip3009TokenAbi, data: input })
    if (call.functionName !== "transferWithAuthorization") return null
    const [payer, recipient, amount, , , nonce] = call.args
    const matches = sameAddress(payer, from) && sameAddress(recipient, collection) && amount === value
    return matches && isHex32(nonce.toLowerCase()) ? nonce.toLowerCase() : null
  } catch {
    return null
  }
}

/** What a log's transfer carries besides the log: a reference, the deposit it paid; `null` leaves it out. */
type Annotate = (
  log: { readonly from: string; readonly to: string; readonly value: bigint; readonly token: string },
  tx: { readonly input: Hex; readonly to: string | null }
) => Pick<ObservedTransfer, "reference" | "deposit"> | null

/** The `Transfer` logs of the chain's tokens to any of `recipients` in blocks `from`..`to`, in chain order. */
const transfersTo = (
  chain: WatchedChain,
  recipients: ReadonlyArray<Address>,
  from: number,
  to: number,
  annotate: Annotate
): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  Effect.gen(function*() {
    const { chainId, client } = chain
    const logs = yield* rpc(chainId, "eth_getLogs", () =>
      client.getLogs({
        address: [...chain.tokens.keys()] as Array<Address>,
        event: eip3009TokenAbi.find((item) => item.type === "event" && item.name === "Transfer")!,
        args: { to: [...recipients] },
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
        strict: true
      }))
    const blockTimes = new Map<bigint, number>()
    const transactions = new Map<string, { readonly input: Hex; readonly to: string | null }>()
    const found: Array<ObservedTransfer> = []
    for (const log of logs) {
      // A log without its place in a block (a block the node was still building) must not be passed
      // over: the caller reads the range again instead of moving past it.
      if (log.blockNumber === null || log.transactionHash === null || log.logIndex === null || log.blockHash === null) {
        return yield* new ChainRpcError({
          chainId,
          operation: "eth_getLogs",
          failure: "unavailable",
          message: `the node answered a log of blocks ${from}..${to} without its block; reading them again`
        })
      }
      const blockNumber = log.blockNumber
      if (!blockTimes.has(blockNumber)) {
        const block = yield* rpc(chainId, "eth_getBlockByNumber", () => client.getBlock({ blockNumber }))
        blockTimes.set(blockNumber, Number(block.timestamp))
      }
      const hash: Hash = log.transactionHash
      let tx = transactions.get(hash)
      if (tx === undefined) {
        const read = yield* rpc(chainId, "eth_getTransactionByHash", () => client.getTransaction({ hash }))
        tx = { input: read.input, to: read.to }
        transactions.set(hash, tx)
      }
      const { from: sender, to: recipient, value } = log.args
      const annotation = annotate({ from: sender, to: recipient, value, token: log.address }, tx)
      if (annotation === null) continue
      found.push({
        chainId,
        asset: chain.tokens.get(log.address.toLowerCase())!,
        txHash: hash.toLowerCase(),
        logIndex: log.logIndex,
        blockNumber: Number(blockNumber),
        blockHash: log.blockHash.toLowerCase(),
        blockTime: blockTimes.get(blockNumber)!,
        from: `${chainId}:${sender}`,
        value,
        ...annotation
      })
    }
    return found
  })

/**
 * The transfers into the collection address in blocks `from`..`to` (inclusive), in chain order.
 * Every log is kept, a reference or not: nothing that arrived is dropped. Sweeps of deposit
 * addresses (transactions to the chain's deposit factory) are left out: what they move was
 * recorded when it reached the deposit address.
 */
export const transfersIn = (chain: WatchedChain, from: number, to: number): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  transfersTo(chain, [chain.collectionAddress], from, to, (log, tx) => {
    if (chain.depositFactory !== undefined && tx.to !== null && sameAddress(tx.to, chain.depositFactory)) return null
    return { reference: referenceOf(tx.input, log.token, tx.to, log.from, log.value, chain.collectionAddress) }
  })

/** Deposit addresses per `eth_getLogs` (providers cap the size of a request). */
const depositsPerRead = 200

/**
 * The transfers into the deposit addresses `deposits` (of this chain) in blocks `from`..`to`, in
 * chain order per read, each naming its payment and address (`deposit`); no reference.
 */
export const depositTransfersIn = (
  chain: WatchedChain,
  deposits: ReadonlyArray<{ readonly address: string; readonly paymentId: string }>,
  from: number,
  to: number
): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  Effect.gen(function*() {
    const payments = new Map(deposits.map((d) => [d.address.toLowerCase(), d.paymentId]))
    const found: Array<ObservedTransfer> = []
    for (let i = 0; i < deposits.length; i += depositsPerRead) {
      const addresses = deposits.slice(i, i + depositsPerRead).map((d) => getAddress(d.address))
      found.push(...yield* transfersTo(chain, addresses, from, to, (log) => {
        const paymentId = payments.get(log.to.toLowerCase())
        return paymentId === undefined ? null : { reference: null, deposit: { paymentId, account: `${chain.chainId}:${getAddress(log.to)}` } }
      }))
    }
    return found
  })
