/**
 * The domain's `DepositSweeper` port on EVM chains, with viem: `DepositFactory.sweep(token, salts)`
 * sent by each chain's executor (the factory's owner, which pays the gas) through the process's
 * shared executor sender (`ExecutorSender.shared`: the same nonce sequence as pull payments).
 *
 * - `send` estimates first: a revert (e.g. the factory is not owned by the executor) is
 *   `PayoutReverted` and nothing is signed. The sweep is signed, recorded by the caller, and only
 *   then broadcast.
 * - `observe`: included and confirmed without reverting, with a transfer to the collection address,
 *   is `succeeded`; without one (it moved nothing there) `failed`; without a receipt once the
 *   executor's confirmed nonce passed the sweep's, `dropped`.
 *
 * @module
 */
import { Caip, ChainUnavailable, DepositSweeper, type PayoutOutcome, type SignedTransfer } from "@paygate/domain"
import { Duration, Effect, Layer, Result } from "effect"
import { type Address, getAddress, type Hash, type Hex, isAddress, parseEventLogs } from "viem"
import { ChainsConfig, lookupAsset, rpcEndpoints } from "./ChainConfig.ts"
import { depositAddress, saltOf, sweepCall } from "./DepositAddresses.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { signerFor } from "./ChainSigners.ts"
import * as ExecutorSender from "./ExecutorSender.ts"
import { nonceTaken, type ObservedChain, transferStanding } from "./ObserveTransfer.ts"
import { type ChainRpcError, makeClient, rpc } from "./RpcCall.ts"
import { sendOnce } from "./ViemPayouts.ts"

/** What one asset's sweeps need: its chain, token, factory and the executor's sender. */
interface SweepTarget {
  readonly chain: ObservedChain
  readonly token: Address
  readonly factory: Address
  readonly sender: ExecutorSender.ExecutorSender
}

const unavailable = (error: ChainRpcError) => new ChainUnavailable({ chainId: error.chainId, message: error.message })

/** Builds the port for the configured chains that have a deposit factory. */
export const make = Effect.gen(function*() {
  const chains = yield* ChainsConfig
  const runtimes = new Map<string, Omit<SweepTarget, "token">>()
  for (const settings of chains.settings.chains) {
    if (settings.depositFactory === undefined) continue
    const signer = yield* signerFor(settings, "sweep").pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logError(`Chain ${settings.chainId}: the sweep signer cannot be used (${error.message}): its sweeps wait.`), undefined)
      )
    )
    if (signer === undefined) continue
    const client = makeClient(rpcEndpoints(settings))
    const sender = yield* ExecutorSender.shared({ chainId: settings.chainId, client, signer, rpcUrl: settings.rpcUrl })
    runtimes.set(settings.chainId, {
      chain: { chainId: settings.chainId, client, settings },
      factory: settings.depositFactory as Address,
      sender
    })
  }

  // A configured token, or any ERC-20 token that reached a deposit address (the operator sweeps those).
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
    return Effect.succeed({ ...runtime, token: found.token })
  }

  const balance = (asset: string, paymentId: string) =>
    Effect.flatMap(target(asset), ({ chain, factory, token }) =>
      rpc(chain.chainId, "eth_call", () =>
        chain.client.readContract({ address: token, abi: eip3009TokenAbi, functionName: "balanceOf", args: [depositAddress(factory, paymentId)] })).pipe(
          Effect.mapError(unavailable)
        ))

  const send = (asset: string, paymentIds: ReadonlyArray<string>, record: (signed: SignedTransfer) => Effect.Effect<boolean>) =>
    Effect.gen(function*() {
      const { chain, factory, sender, token } = yield* target(asset)
      return yield* sendOnce(chain, sender, { to: factory, data: sweepCall(token, paymentIds.map(saltOf)) }, record)
    }).pipe(Effect.withSpan("DepositSweeper.send", { attributes: { asset, deposits: paymentIds.length } }))

  const resend = (asset: string, signed: SignedTransfer) =>
    Effect.flatMap(target(asset), ({ sender }) => sender.resend(signed.raw as Hex).pipe(Effect.mapError(unavailable)))

  // `transferStanding` reads it to the confirmations; only funds that reached the collection address make it a sweep.
  const standing = (t: SweepTarget, signed: SignedTransfer): Effect.Effect<PayoutOutcome, ChainRpcError> =>
    Effect.gen(function*() {
      const hash = signed.txHash as Hash
      const read = yield* transferStanding(t.chain, t.token, t.chain.settings.collectionAddress, hash)
      switch (read) {
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
          const again = yield* transferStanding(t.chain, t.token, t.chain.settings.collectionAddress, hash)
          return again === "unmined" ? "dropped" : "pending"
        }
      }
    })

  const observe = (asset: string, signed: SignedTransfer): Effect.Effect<PayoutOutcome> =>
    Effect.flatMap(target(asset), (t) => standing(t, signed)).pipe(
      Effect.timeout(Duration.seconds(15)),
      Effect.catch((error) => Effect.logWarning(`sweep ${signed.txHash}: outcome unknown (${error.message})`).pipe(Effect.as("unknown" as const))),
      Effect.withSpan("DepositSweeper.observe", { attributes: { asset, txHash: signed.txHash } })
    )

  // The sweep's `Transfer` logs of its token into the collection address, summed per sender (a deposit address).
  const moved = (asset: string, signed: SignedTransfer) =>
    Effect.gen(function*() {
      const t = yield* target(asset)
      const receipt = yield* rpc(t.chain.chainId, "eth_getTransactionReceipt", () =>
        t.chain.client.getTransactionReceipt({ hash: signed.txHash as Hash })).pipe(Effect.mapError(unavailable))
      const sums = new Map<string, bigint>()
      for (const log of parseEventLogs({ abi: eip3009TokenAbi, eventName: "Transfer", logs: receipt.logs })) {
        if (!sameAddress(log.address, t.token) || !sameAddress(log.args.to, t.chain.settings.collectionAddress)) continue
        const from = log.args.from.toLowerCase()
        sums.set(from, (sums.get(from) ?? 0n) + log.args.value)
      }
      return [...sums].map(([address, value]) => ({ address, value }))
    }).pipe(Effect.withSpan("DepositSweeper.moved", { attributes: { asset, txHash: signed.txHash } }))

  return DepositSweeper.of({ balance, send, moved, resend, observe })
})

/** The port over the configured chains; needs `ChainsConfig`. */
export const layer: Layer.Layer<DepositSweeper, never, ChainsConfig> = Layer.effect(DepositSweeper, make)
