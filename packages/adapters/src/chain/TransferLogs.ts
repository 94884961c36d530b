/**
 * Reading a chain for reconciliation: the ERC-20 `Transfer` logs of the configured tokens into the
 * chain's collection address, in a block range, each with the reference it carried: the nonce of
 * the EIP-3009 authorization that made it (the token's `AuthorizationUsed` next to it, whatever
 * contract submitted it), the nonce of the Permit2 permit whose `permitTransferFrom` made it, or the
 * 16 bytes after a push payment's `transfer`; and those of any token
 * into payments' deposit addresses. Only blocks with the chain's required confirmations are read
 * ({@link safeHead}); the watcher compares block hashes to notice a deeper reorganisation.
 *
 * @module
 */
import type { ObservedTransfer } from "@paygate/domain"
import { Effect, Option } from "effect"
import { type Address, getAddress, type Hash, type Hex, type PublicClient } from "viem"
import { type Chains, rpcEndpoints } from "./ChainConfig.ts"
import { type Factory, factoriesOf } from "./DepositAddresses.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { permitReference } from "./Permit2.ts"
import { isNativeAssetId } from "./NativeAsset.ts"
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
  /** The chain's deposit factories, the one handing out addresses first (transfers to their addresses are read too). */
  readonly depositFactories: ReadonlyArray<Factory>
  /** CAIP-19 of the chain's native asset when it is accepted (its transfers are read from blocks, see `NativeTransfers.ts`). */
  readonly nativeAsset: string | undefined
}

/** The configured chains that accept at least one token, each with its own read client. */
export const watchedChains = (chains: Chains): ReadonlyArray<WatchedChain> =>
  chains.settings.chains.flatMap((chain) => {
    const accepted = chains.settings.assets.filter((asset) => asset.assetId.startsWith(`${chain.chainId}/`))
    const tokens = new Map(
      accepted
        .filter((asset) => !isNativeAssetId(asset.assetId))
        .map((asset) => [asset.assetId.slice(asset.assetId.lastIndexOf(":") + 1).toLowerCase(), asset.assetId] as const)
    )
    const nativeAsset = accepted.find((asset) => isNativeAssetId(asset.assetId))?.assetId
    if (tokens.size === 0 && nativeAsset === undefined) return []
    return [{
      chainId: chain.chainId,
      client: makeClient(rpcEndpoints(chain)),
      collectionAddress: chain.collectionAddress as Address,
      requiredConfirmations: chain.requiredConfirmations,
      tokens,
      depositFactories: factoriesOf(chain),
      nativeAsset
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


/** The 16-byte reference a push transfer of `value` to `collection` appended to its call to the token. */
const pushReference = (input: Hex, token: string, to: string | null, value: bigint, collection: string): string | null => {
  if (to === null || !sameAddress(to, token)) return null
  const push = decodeTransferWithReference(input)
  return Option.isSome(push) && sameAddress(push.value.to, collection) && push.value.value === value ? push.value.reference : null
}

/** A `Transfer` log as an {@link Annotate} sees it. */
interface TransferLog {
  readonly from: string
  readonly to: string
  readonly value: bigint
  /** The token contract, lower-case. */
  readonly token: string
  /** Lower-case. */
  readonly txHash: string
  readonly logIndex: number
}

/** What a log's transfer carries besides the log: a reference, the deposit it paid; `null` leaves it out. */
type Annotate = (log: TransferLog, tx: { readonly input: Hex; readonly to: string | null }) => Pick<ObservedTransfer, "reference" | "deposit"> | null

/** Which tokens' logs a read covers: the configured ones, or any contract's (what reached a deposit address). */
type Tokens = "configured" | "any"

const transferEvent = eip3009TokenAbi.find((item) => item.type === "event" && item.name === "Transfer")!
const authorizationUsedEvent = eip3009TokenAbi.find((item) => item.type === "event" && item.name === "AuthorizationUsed")!

/** The CAIP-19 id of `token` on the chain: the configured one, else an ERC-20 id of its EIP-55 address. */
const assetOf = (chain: WatchedChain, token: string) => chain.tokens.get(token.toLowerCase()) ?? `${chain.chainId}/erc20:${getAddress(token)}`

/** The `Transfer` logs to any of `recipients` in blocks `from`..`to`, in chain order, annotated by `annotator`'s answer. */
const transfersTo = (
  chain: WatchedChain,
  recipients: ReadonlyArray<Address>,
  from: number,
  to: number,
  tokens: Tokens,
  annotator: (logs: ReadonlyArray<unknown>) => Effect.Effect<Annotate, ChainRpcError>
): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  Effect.gen(function*() {
    const { chainId, client } = chain
    const logs = yield* rpc(chainId, "eth_getLogs", () =>
      client.getLogs({
        ...(tokens === "configured" ? { address: [...chain.tokens.keys()] as Array<Address> } : {}),
        event: transferEvent,
        args: { to: [...recipients] },
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
        // Logs that do not decode as an ERC-20 transfer (an ERC-721 one has the same topic) are left out.
        strict: true
      }))
    if (logs.length === 0) return []
    const annotate = yield* annotator(logs)
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
      const token = log.address.toLowerCase()
      const annotation = annotate({ from: sender, to: recipient, value, token, txHash: hash.toLowerCase(), logIndex: log.logIndex }, tx)
      if (annotation === null) continue
      found.push({
        chainId,
        asset: assetOf(chain, token),
        ...(chain.tokens.has(token) ? {} : { unlisted: true as const }),
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
 * The EIP-3009 authorizations used in blocks `from`..`to` (the tokens' `AuthorizationUsed` logs):
 * `txHash:logIndex` → token, authorizer and nonce, all lower-case.
 */
const authorizationsUsed = (chain: WatchedChain, from: number, to: number) =>
  Effect.map(
    rpc(chain.chainId, "eth_getLogs", () =>
      chain.client.getLogs({
        address: [...chain.tokens.keys()] as Array<Address>,
        event: authorizationUsedEvent,
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
        strict: true
      })),
    (logs) =>
      new Map(logs.flatMap((log) =>
        log.transactionHash === null || log.logIndex === null ? [] : [[
          `${log.transactionHash.toLowerCase()}:${log.logIndex}`,
          { token: log.address.toLowerCase(), authorizer: log.args.authorizer.toLowerCase(), nonce: log.args.nonce.toLowerCase() }
        ] as const]
      ))
  )

/**
 * The nonce of the EIP-3009 authorization that made the transfer `log`: the token's
 * `AuthorizationUsed` by the transfer's sender right before its `Transfer` (as USDC emits them),
 * or right after it. Whoever submitted it (the token itself, a forwarder, a multicall, a smart
 * wallet), the transfer is the authorization's.
 */
const authorizationNonce = (
  used: ReadonlyMap<string, { readonly token: string; readonly authorizer: string; readonly nonce: string }>,
  log: TransferLog
): string | null => {
  for (const index of [log.logIndex - 1, log.logIndex + 1]) {
    const found = used.get(`${log.txHash}:${index}`)
    if (found !== undefined && found.token === log.token && found.authorizer === log.from.toLowerCase()) return found.nonce
  }
  return null
}

/**
 * The transfers into the collection address in blocks `from`..`to` (inclusive), in chain order.
 * Every log is kept, a reference or not: nothing that arrived is dropped. Sweeps of deposit
 * addresses (transactions to the chain's deposit factory) are left out: what they move was
 * recorded when it reached the deposit address.
 */
export const transfersIn = (chain: WatchedChain, from: number, to: number): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  // A chain accepting only its native asset has no token to read (no address filter would read every token's).
  chain.tokens.size === 0 ? Effect.succeed([]) : transfersTo(chain, [chain.collectionAddress], from, to, "configured", () =>
    Effect.map(authorizationsUsed(chain, from, to), (used): Annotate => (log, tx) => {
      if (tx.to !== null && chain.depositFactories.some((factory) => sameAddress(tx.to!, factory.address))) return null
      return {
        reference: authorizationNonce(used, log) ?? permitReference(tx, log, chain.collectionAddress) ??
          pushReference(tx.input, log.token, tx.to, log.value, chain.collectionAddress)
      }
    }))

/** Deposit addresses per `eth_getLogs` (providers cap the size of a request). */
const depositsPerRead = 200

/**
 * The transfers of any token into the deposit addresses `deposits` (of this chain) in blocks
 * `from`..`to`, in chain order per read, each naming its payment and address (`deposit`); no
 * reference. A token the chain does not configure gets an ERC-20 asset id of its address and is
 * `unlisted`.
 */
export const depositTransfersIn = (
  chain: WatchedChain,
  deposits: ReadonlyArray<{ readonly address: string; readonly paymentId: string }>,
  from: number,
  to: number
): Effect.Effect<ReadonlyArray<ObservedTransfer>, ChainRpcError> =>
  Effect.gen(function*() {
    const payments = new Map(deposits.map((d) => [d.address.toLowerCase(), d.paymentId]))
    const annotate: Annotate = (log) => {
      const paymentId = payments.get(log.to.toLowerCase())
      return paymentId === undefined ? null : { reference: null, deposit: { paymentId, account: `${chain.chainId}:${getAddress(log.to)}` } }
    }
    const found: Array<ObservedTransfer> = []
    for (let i = 0; i < deposits.length; i += depositsPerRead) {
      const addresses = deposits.slice(i, i + depositsPerRead).map((d) => getAddress(d.address))
      found.push(...yield* transfersTo(chain, addresses, from, to, "any", () => Effect.succeed(annotate)))
    }
    return found
  })

/** What `holder` held of the ERC-20 `token` at block `n` (the ledger's reconciliation reads it). */
export const tokenBalanceAt = (chain: WatchedChain, token: string, holder: string, n: number): Effect.Effect<bigint, ChainRpcError> =>
  rpc(chain.chainId, "eth_call", () =>
    chain.client.readContract({
      address: getAddress(token),
      abi: eip3009TokenAbi,
      functionName: "balanceOf",
      args: [getAddress(holder)],
      blockNumber: BigInt(n)
    }))

/** What `holder` held of the chain's own coin at block `n`. */
export const nativeBalanceAt = (chain: WatchedChain, holder: string, n: number): Effect.Effect<bigint, ChainRpcError> =>
  rpc(chain.chainId, "eth_getBalance", () => chain.client.getBalance({ address: getAddress(holder), blockNumber: BigInt(n) }))
