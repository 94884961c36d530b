/**
 * The domain's `DepositSweeper` port on EVM chains, with viem: `sweep(token, salts)` on the deposit
 * factory that made the addresses, sent by each chain's executor (the factory's owner, which pays
 * the gas) through the process's shared executor sender (`ExecutorSender.shared`: the same nonce
 * sequence as pull payments). A deposit's factory is the configured one whose CREATE2 address for
 * its payment is the deposit's address (`DepositAddresses.factoryOf`): addresses handed out by the
 * chain's first factory are still swept through it after the upgrade.
 *
 * - The chain's own coin ({@link nativeToken}) is swept by a version-2 factory only: the forwarder
 *   sends its whole balance, the executor paying the sweep's gas, so nothing has to stay behind for it.
 * - `send` estimates first: a revert (e.g. the factory is not owned by the executor) is
 *   `PayoutReverted` and nothing is signed. The sweep is signed, recorded by the caller, and only
 *   then broadcast.
 * - `observe`: included and confirmed without reverting, having moved funds to the collection
 *   address (a token's `Transfer` there; for the coin, the factory's `Swept` to it), is `succeeded`;
 *   without (it moved nothing there) `failed`; without a receipt once the executor's confirmed
 *   nonce passed the sweep's, `dropped`.
 * - `moved` reads the same logs: what reached the collection address, per deposit address.
 *
 * @module
 */
import { Caip, ChainUnavailable, type DepositSweep, DepositSweeper, type PayoutOutcome, type SignedTransfer } from "@paygate/domain"
import { Duration, Effect, Layer, Result } from "effect"
import { type Address, getAddress, type Hash, type Hex, isAddress, parseEventLogs, type TransactionReceipt } from "viem"
import { ChainsConfig, lookupAsset, rpcEndpoints } from "./ChainConfig.ts"
import { DepositFactoryV2 } from "./contracts.generated.ts"
import { type Factory, factoriesOf, factoryOf, saltOf, sweepCall } from "./DepositAddresses.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { isNativeToken } from "./NativeAsset.ts"
import { signerFor } from "./ChainSigners.ts"
import * as ExecutorSender from "./ExecutorSender.ts"
import { nonceTaken, type ObservedChain, receiptStanding } from "./ObserveTransfer.ts"
import { type ChainRpcError, makeClient, rpc } from "./RpcCall.ts"
import { sendOnce } from "./ViemPayouts.ts"

/** One chain's sweeps: its client, factories and the executor's sender. */
interface ChainSweeps {
  readonly chain: ObservedChain
  readonly factories: ReadonlyArray<Factory>
  readonly sender: ExecutorSender.ExecutorSender
}

/** What one asset's sweeps need: its chain and token. */
interface SweepTarget extends ChainSweeps {
  readonly token: Address
}

const unavailable = (error: ChainRpcError) => new ChainUnavailable({ chainId: error.chainId, message: error.message })

/** The coin's sweeps into `collection` that `receipt` logs (the factories' `Swept`), per forwarder. */
const etherSwept = (receipt: TransactionReceipt, factories: ReadonlyArray<Factory>, collection: string) =>
  parseEventLogs({ abi: DepositFactoryV2.abi, eventName: "Swept", logs: receipt.logs }).filter((log) =>
    factories.some((f) => f.version === 2 && sameAddress(f.address, log.address)) && isNativeToken(log.args.token) &&
    sameAddress(log.args.to, collection) && log.args.amount > 0n
  ).map((log) => ({ from: log.args.forwarder, value: log.args.amount }))

/** A token's `Transfer` logs in `receipt` into `collection`, per sender. */
const tokenSwept = (receipt: TransactionReceipt, token: Address, collection: string) =>
  parseEventLogs({ abi: eip3009TokenAbi, eventName: "Transfer", logs: receipt.logs }).filter((log) =>
    sameAddress(log.address, token) && sameAddress(log.args.to, collection) && log.args.value > 0n
  ).map((log) => ({ from: log.args.from, value: log.args.value }))

/** What `receipt` moved of the target's asset into the collection address, per deposit address. */
const sweptBy = (t: SweepTarget, receipt: TransactionReceipt) =>
  isNativeToken(t.token)
    ? etherSwept(receipt, t.factories, t.chain.settings.collectionAddress)
    : tokenSwept(receipt, t.token, t.chain.settings.collectionAddress)

/** Builds the port for the configured chains that have a deposit factory. */
export const make = Effect.gen(function*() {
  const chains = yield* ChainsConfig
  const runtimes = new Map<string, ChainSweeps>()
  for (const settings of chains.settings.chains) {
    const factories = factoriesOf(settings)
    if (factories.length === 0) continue
    const signer = yield* signerFor(settings, "sweep").pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logError(`Chain ${settings.chainId}: the sweep signer cannot be used (${error.message}): its sweeps wait.`), undefined)
      )
    )
    if (signer === undefined) continue
    const client = makeClient(rpcEndpoints(settings))
    const sender = yield* ExecutorSender.shared({ chainId: settings.chainId, client, signer, rpcUrl: settings.rpcUrl })
    runtimes.set(settings.chainId, { chain: { chainId: settings.chainId, client, settings }, factories, sender })
  }

  // A configured asset, or any ERC-20 token that reached a deposit address (the operator sweeps those).
  const target = (asset: string): Effect.Effect<SweepTarget, ChainUnavailable> => {
    const parsed = Caip.validateAssetId(asset)
    const erc20 = Result.isSuccess(parsed) && parsed.success.assetNamespace === "erc20" && isAddress(parsed.success.assetReference)
      ? { chainId: parsed.success.chainId, token: getAddress(parsed.success.assetReference) }
      : undefined
    const found = lookupAsset(chains, asset) ?? erc20
    const chainId = found === undefined ? asset.slice(0, asset.indexOf("/")) : "chain" in found ? found.chain.chainId : found.chainId
    const runtime = found === undefined ? undefined : runtimes.get(chainId)
    if (found === undefined || runtime === undefined) {
      return Effect.fail(new ChainUnavailable({ chainId, message: `Asset ${asset} has no deposit factory configured: its sweeps wait.` }))
    }
    return Effect.succeed({ ...runtime, token: found.token as Address })
  }

  // The asset's target and the factory that made the deposit's address (one that can sweep the asset).
  const depositTarget = (deposit: DepositSweep): Effect.Effect<SweepTarget & { readonly factory: Factory }, ChainUnavailable> =>
    Effect.flatMap(target(deposit.asset), (t) => {
      const factory = factoryOf(t.factories, deposit.paymentId, deposit.address)
      if (factory === undefined || (isNativeToken(t.token) && factory.version === 1)) {
        const why = factory === undefined ? "no configured deposit factory computes it" : "its factory (the first version) cannot sweep the chain's own coin"
        return Effect.fail(new ChainUnavailable({ chainId: deposit.chainId, message: `Deposit ${deposit.address} in ${deposit.asset}: ${why}; its sweep waits.` }))
      }
      return Effect.succeed({ ...t, factory })
    })

  const balance = (deposit: DepositSweep) =>
    Effect.flatMap(depositTarget(deposit), ({ chain, token }) => {
      const holder = getAddress(deposit.address)
      return rpc(chain.chainId, isNativeToken(token) ? "eth_getBalance" : "eth_call", () =>
        isNativeToken(token)
          ? chain.client.getBalance({ address: holder })
          : chain.client.readContract({ address: token, abi: eip3009TokenAbi, functionName: "balanceOf", args: [holder] })).pipe(Effect.mapError(unavailable))
    })

  const batchOf = (deposit: DepositSweep) => {
    const runtime = runtimes.get(deposit.chainId)
    const factory = runtime === undefined ? undefined : factoryOf(runtime.factories, deposit.paymentId, deposit.address)
    return `${deposit.asset}|${factory?.address ?? "none"}`
  }

  const send = (deposits: ReadonlyArray<DepositSweep>, record: (signed: SignedTransfer) => Effect.Effect<boolean>) =>
    Effect.gen(function*() {
      const { chain, factory, sender, token } = yield* depositTarget(deposits[0]!)
      return yield* sendOnce(chain, sender, { to: factory.address, data: sweepCall(token, deposits.map((d) => saltOf(d.paymentId))) }, record)
    }).pipe(Effect.withSpan("DepositSweeper.send", { attributes: { asset: deposits[0]?.asset, deposits: deposits.length } }))

  const resend = (asset: string, signed: SignedTransfer) =>
    Effect.flatMap(target(asset), ({ sender }) => sender.resend(signed.raw as Hex).pipe(Effect.mapError(unavailable)))

  // Read to the confirmations; only funds that reached the collection address make it a sweep.
  const standing = (t: SweepTarget, signed: SignedTransfer): Effect.Effect<PayoutOutcome, ChainRpcError> =>
    Effect.gen(function*() {
      const hash = signed.txHash as Hash
      const read = () => receiptStanding(t.chain, hash, (receipt) => Effect.succeed(sweptBy(t, receipt).length > 0))
      switch (yield* read()) {
        case "succeeded":
          return "succeeded"
        case "unpaid":
          // Included, yet nothing reached the collection address: not a sweep that counts.
          return "failed"
        case "reverted":
          return "reverted"
        case "confirming":
          return "pending"
        case "unmined": {
          if (!(yield* nonceTaken(t.chain, t.sender.address, signed.raw as Hex))) return "pending"
          // Asked after the nonce: had this sweep taken it, its receipt would be there now.
          return (yield* read()) === "unmined" ? "dropped" : "pending"
        }
      }
    })

  const observe = (asset: string, signed: SignedTransfer): Effect.Effect<PayoutOutcome> =>
    Effect.flatMap(target(asset), (t) => standing(t, signed)).pipe(
      Effect.timeout(Duration.seconds(15)),
      Effect.catch((error) => Effect.logWarning(`sweep ${signed.txHash}: outcome unknown (${error.message})`).pipe(Effect.as("unknown" as const))),
      Effect.withSpan("DepositSweeper.observe", { attributes: { asset, txHash: signed.txHash } })
    )

  // What the sweep moved into the collection address, summed per deposit address.
  const moved = (asset: string, signed: SignedTransfer) =>
    Effect.gen(function*() {
      const t = yield* target(asset)
      const receipt = yield* rpc(t.chain.chainId, "eth_getTransactionReceipt", () =>
        t.chain.client.getTransactionReceipt({ hash: signed.txHash as Hash })).pipe(Effect.mapError(unavailable))
      const sums = new Map<string, bigint>()
      for (const { from, value } of sweptBy(t, receipt)) sums.set(from.toLowerCase(), (sums.get(from.toLowerCase()) ?? 0n) + value)
      return [...sums].map(([address, value]) => ({ address, value }))
    }).pipe(Effect.withSpan("DepositSweeper.moved", { attributes: { asset, txHash: signed.txHash } }))

  return DepositSweeper.of({ balance, batchOf, send, moved, resend, observe })
})

/** The port over the configured chains; needs `ChainsConfig`. */
export const layer: Layer.Layer<DepositSweeper, never, ChainsConfig> = Layer.effect(DepositSweeper, make)
