/**
 * The domain's `Payouts` port on EVM chains, with viem: ERC-20 `transfer`s from each chain's
 * collection address, signed with its `collectionPrivateKey` through one `ExecutorSender` per
 * chain (one nonce sequence per collection key in this process).
 *
 * - `send` estimates the transfer first: a revert (e.g. the collection address lacks the tokens)
 *   is `PayoutReverted` and nothing is signed. Then the transfer is signed, recorded by the caller
 *   and only then broadcast (`ExecutorSender.sendRecorded`).
 * - `observe` reads the transaction like a payment's (`ObserveTransfer.transferStanding`, the
 *   chain's required confirmations, a `Transfer` to the recipient). A transaction without a receipt
 *   is `dropped` once the collection address's nonce at the confirmed depth has passed its nonce
 *   (another transaction took it) and it still has no receipt: it can never be included.
 * - A chain without `collectionPrivateKey` cannot pay out: `send` and `resend` fail with
 *   `ChainUnavailable` saying so (the payouts wait), and the start-up log warns once.
 *
 * Not handled: replacing (fee-bumping) a transfer stuck in the mempool; the collection address
 * must hold the chain's native token for gas.
 *
 * @module
 */
import {
  Caip,
  ChainUnavailable,
  type PayoutOutcome,
  PayoutReverted,
  Payouts,
  type PayoutTransfer,
  SignedTransfer
} from "@paygate/domain"
import { Duration, Effect, Layer, Option, Result, Schedule } from "effect"
import { type Address, encodeFunctionData, type Hash, type Hex, type PublicClient } from "viem"
import { type ChainSettings, ChainsConfig, lookupAsset, rpcEndpoints } from "./ChainConfig.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { signerFor } from "./ChainSigners.ts"
import * as ExecutorSender from "./ExecutorSender.ts"
import { isNativeToken } from "./NativeAsset.ts"
import { nonceTaken, transferStanding } from "./ObserveTransfer.ts"
import { type ChainRpcError, makeClient, rpc } from "./RpcCall.ts"

/** Tuning of {@link make}; every field has a default. */
export interface PayoutsOptions {
  /** Timeout of each JSON-RPC request; default 10 seconds. */
  readonly rpcTimeout?: Duration.Input | undefined
  /** Bound on one `observe`, after which it answers `unknown`; default 15 seconds. */
  readonly observeTimeout?: Duration.Input | undefined
}

/** One chain's payout resources; no sender without a collection key. */
interface PayoutChain {
  readonly chainId: string
  readonly settings: ChainSettings
  readonly client: PublicClient
  readonly sender: ExecutorSender.ExecutorSender | undefined
}

/** Who pays in an asset: its chain and token, and the collection address's sender. */
interface Payer {
  readonly chain: PayoutChain
  readonly sender: ExecutorSender.ExecutorSender
  readonly token: Address
}

/** Where a transfer goes: its payer and recipient. */
interface Target extends Payer {
  readonly to: Address
}

/** Headroom over the estimate: balances can change between estimate and inclusion. */
const withHeadroom = (gas: bigint) => gas + gas / 4n
const retries = Schedule.exponential(Duration.millis(200))

const unavailable = (error: ChainRpcError) => new ChainUnavailable({ chainId: error.chainId, message: error.message })

/**
 * The send-once path of payouts and deposit sweeps: estimates the call (a revert is
 * `PayoutReverted`, nothing signed), signs it from `sender` with headroom over the estimate, hands
 * it to `record`, and broadcasts it only once recorded; answers it, or none when not recorded.
 */
export const sendOnce = (
  chain: { readonly chainId: string; readonly client: PublicClient },
  sender: ExecutorSender.ExecutorSender,
  call: { readonly to: Address; readonly data: Hex; readonly value?: bigint },
  record: (signed: SignedTransfer) => Effect.Effect<boolean>
): Effect.Effect<Option.Option<SignedTransfer>, PayoutReverted | ChainUnavailable> =>
  Effect.gen(function*() {
    const estimate = yield* rpc(chain.chainId, "eth_estimateGas", () => chain.client.estimateGas({ account: sender.address, ...call })).pipe(
      Effect.retry({ schedule: retries, times: 3, while: (error) => error.failure === "unavailable" }),
      Effect.map(Result.succeed),
      Effect.catchIf((error) => error.failure === "reverted", (error) => Effect.succeed(Result.fail(error))),
      Effect.mapError(unavailable)
    )
    if (Result.isFailure(estimate)) return yield* new PayoutReverted({ message: estimate.failure.message })
    const sent = yield* sender.sendRecorded(
      { ...call, gas: withHeadroom(estimate.success) },
      (signed) => record(new SignedTransfer({ txHash: signed.hash, raw: signed.raw }))
    ).pipe(Effect.mapError(unavailable))
    return Option.map(Option.fromUndefinedOr(sent), (signed) => new SignedTransfer({ txHash: signed.hash, raw: signed.raw }))
  })

/** Builds the port for the configured chains. */
export const make = Effect.fn("ViemPayouts.make")(function*(options: PayoutsOptions = {}) {
  const chains = yield* ChainsConfig
  const payoutChains = new Map<string, PayoutChain>()
  for (const settings of chains.settings.chains) {
    const client = makeClient(rpcEndpoints(settings), { timeout: options.rpcTimeout })
    const signer = yield* signerFor(settings, "payout").pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logError(`Chain ${settings.chainId}: the payout signer cannot be used (${error.message}).`), undefined)
      )
    )
    const sender = signer === undefined ? undefined : yield* ExecutorSender.make({ chainId: settings.chainId, client, signer })
    if (sender === undefined) {
      yield* Effect.logWarning(
        `Chain ${settings.chainId} has no usable payout signer (collectionPrivateKey or signers.payout): its settlements and refunds stay pending until it is configured.`
      )
    }
    payoutChains.set(settings.chainId, { chainId: settings.chainId, settings, client, sender })
  }

  const payer = (asset: string): Effect.Effect<Payer, ChainUnavailable> => {
    const found = lookupAsset(chains, asset)
    const chain = found === undefined ? undefined : payoutChains.get(found.chain.chainId)
    if (found === undefined || chain === undefined) {
      const chainId = asset.slice(0, asset.indexOf("/"))
      return Effect.fail(new ChainUnavailable({ chainId, message: `Asset ${asset} is not configured: payouts in it wait.` }))
    }
    if (chain.sender === undefined) {
      return Effect.fail(
        new ChainUnavailable({
          chainId: chain.chainId,
          message: `Chain ${chain.chainId} has no usable payout signer: payouts from ${chain.settings.collectionAddress} wait.`
        })
      )
    }
    return Effect.succeed({ chain, sender: chain.sender, token: found.token })
  }

  const target = (transfer: PayoutTransfer): Effect.Effect<Target, ChainUnavailable> =>
    Effect.flatMap(payer(transfer.asset), (p) => {
      const recipient = Caip.validateAccountId(transfer.recipient)
      if (Result.isFailure(recipient) || recipient.success.chainId !== p.chain.chainId) {
        // Destinations and payers are checked when recorded: this is a bug, not a chain condition.
        return Effect.die(new Error(`payout recipient ${transfer.recipient} is not an account on ${p.chain.chainId}`))
      }
      return Effect.succeed({ ...p, to: recipient.success.address as Address })
    })

  const send = (transfer: PayoutTransfer, record: (signed: SignedTransfer) => Effect.Effect<boolean>) =>
    Effect.gen(function*() {
      const { chain, sender, to, token } = yield* target(transfer)
      // The native asset is sent as value; a token by its `transfer`.
      const call = isNativeToken(token)
        ? { to, data: "0x" as const, value: transfer.value }
        : { to: token, data: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "transfer", args: [to, transfer.value] }) }
      return yield* sendOnce(chain, sender, call, record)
    }).pipe(Effect.withSpan("Payouts.send", { attributes: { asset: transfer.asset } }))

  const resend = (asset: string, signed: SignedTransfer) =>
    Effect.flatMap(payer(asset), ({ sender }) => sender.resend(signed.raw as Hex).pipe(Effect.mapError(unavailable)))

  // No receipt: still possible while the collection address's confirmed nonce has not passed the transfer's.
  const unmined = (t: Target, signed: SignedTransfer): Effect.Effect<PayoutOutcome, ChainRpcError> =>
    Effect.gen(function*() {
      if (!(yield* nonceTaken(t.chain, t.sender.address, signed.raw as Hex))) return "pending"
      // Asked after the nonce: had this transfer taken it, its receipt would be there now.
      const again = yield* transferStanding(t.chain, t.token, t.to, signed.txHash as Hash)
      return again === "unmined" ? "dropped" : outcomeOf(again)
    })

  const observe = (transfer: PayoutTransfer, signed: SignedTransfer): Effect.Effect<PayoutOutcome> =>
    Effect.gen(function*() {
      const t = yield* target(transfer)
      const standing = yield* transferStanding(t.chain, t.token, t.to, signed.txHash as Hash)
      return standing === "unmined" ? yield* unmined(t, signed) : outcomeOf(standing)
    }).pipe(
      Effect.timeout(Duration.fromInputUnsafe(options.observeTimeout ?? Duration.seconds(15))),
      Effect.catch((error) =>
        Effect.logWarning(`payout ${signed.txHash}: outcome unknown (${error.message})`).pipe(Effect.as("unknown" as const))
      ),
      Effect.withSpan("Payouts.observe", { attributes: { asset: transfer.asset, txHash: signed.txHash } })
    )

  return Payouts.of({ send, resend, observe })
})

const outcomeOf = (standing: "confirming" | "succeeded" | "reverted" | "unpaid"): PayoutOutcome => {
  switch (standing) {
    case "confirming":
      return "pending"
    case "succeeded":
      return "succeeded"
    case "reverted":
      return "reverted"
    case "unpaid":
      return "failed"
  }
}

/** The port with custom tuning. */
export const layerWith = (options: PayoutsOptions): Layer.Layer<Payouts, never, ChainsConfig> => Layer.effect(Payouts, make(options))

/** The port with default tuning; needs `ChainsConfig`. */
export const layer: Layer.Layer<Payouts, never, ChainsConfig> = layerWith({})
