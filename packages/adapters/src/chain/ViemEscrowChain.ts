/**
 * The domain's `EscrowChain` port on EVM chains, with viem, over the chain's `PaymentEscrow`
 * (`paymentEscrow` in its configuration; the contract in `packages/adapters/contracts/PaymentEscrow.sol`,
 * its terms, hash and calls in `PaymentEscrow.ts`). The terms' operator is the chain's executor.
 *
 * - `capture` / `void`: simulated from the executor on the pending block, then sent through its one
 *   nonce sequence within its gas policy (`sendSimulated` in `SubmitAuthorization.ts`, as the
 *   subscription vault's calls). A simulation that reverts is refused, naming the escrow's error
 *   (`Stale`: the capture was made already; `NothingHeld`, `TooMuch`, `DeadlinePassed`); nothing is sent.
 * - `observe`: mined with the chain's required confirmations, in a block still canonical, with status
 *   success (`ObserveTransfer.ts`); no transfer is looked for.
 * - `balance`: the escrow's `payments(termsHash)` at the newest block with the required confirmations.
 * - `chainTime`: the latest block's timestamp.
 *
 * Wiring, as the subscription chain's:
 *
 * ```ts
 * ViemEscrowChain.layer.pipe(Layer.provide(ChainConfig.layerFromEnv)) // or LocalChain.layer(), which deploys an escrow
 * ```
 *
 * @module
 */
import { Caip, ChainUnavailable, EscrowChain, type EscrowedPayment, SubmissionRefused } from "@paygate/domain"
import { Effect, Layer, Result, type Scope } from "effect"
import type { Address, Hex } from "viem"
import { type ChainConfigError, ChainsConfig, lookupAsset } from "./ChainConfig.ts"
import * as ChainRuntime from "./ChainRuntime.ts"
import { PaymentEscrow, TestUsdc } from "./contracts.generated.ts"
import { revertDecoder } from "./ContractRevert.ts"
import { isNativeToken } from "./NativeAsset.ts"
import { isTxHash, observeStanding, receiptStanding } from "./ObserveTransfer.ts"
import { escrowCalls } from "./PaymentEscrow.ts"
import { type HeldTarget, heldTarget } from "./ProofTarget.ts"
import { rpc } from "./RpcCall.ts"
import { type CallReverted, readChain, sendSimulated } from "./SubmitAuthorization.ts"
import type { GatewayOptions } from "./ViemChainGateway.ts"

/** Tuning of {@link make}, as the gateway's; every field has a default. */
export type EscrowChainOptions = Pick<GatewayOptions, "rpcTimeout" | "observeTimeout">

/** A held payment in the escrow of its chain. */
interface Target extends HeldTarget {
  readonly runtime: ChainRuntime.ChainRuntime
}

/** The CAIP-2 chain of an asset id, for errors about payments that do not resolve. */
const chainOf = (asset: string) => asset.slice(0, asset.includes("/") ? asset.indexOf("/") : undefined)

// The token's errors beside the escrow's: a void or capture reverts with whichever refused it (a token's
// revert strings decode as `Error(string)`).
const decodeRevert = revertDecoder(PaymentEscrow.abi, TestUsdc.abi)

/** Why the escrow refused `call`, in one line: its error when it could be read, else the node's message. */
const refusalText = (call: string, revert: CallReverted) => `the escrow refuses ${call}: ${decodeRevert(revert)?.text ?? revert.message}`

/** Builds the port over the configured chains that have a `paymentEscrow`. */
export const make = Effect.fn("ViemEscrowChain.make")(function*(
  options: EscrowChainOptions = {}
): Effect.fn.Return<EscrowChain["Service"], ChainConfigError, ChainsConfig | Scope.Scope> {
  const chains = yield* ChainsConfig
  const built = yield* Effect.forEach(
    chains.settings.chains.filter((settings) => settings.paymentEscrow !== undefined),
    (settings) => ChainRuntime.make(settings, { rpcTimeout: options.rpcTimeout }),
    { concurrency: "unbounded" }
  )
  const runtimes = new Map(built.map((runtime) => [runtime.chainId, runtime]))

  /** The runtime of `asset`'s chain, when it has an escrow; the failure is a phrase for messages. */
  const runtimeOf = (asset: string): Result.Result<{ readonly runtime: ChainRuntime.ChainRuntime; readonly token: Address }, string> => {
    const found = lookupAsset(chains, asset)
    if (found === undefined) return Result.fail(`asset ${asset} is not configured`)
    const runtime = runtimes.get(found.chain.chainId)
    if (runtime === undefined) return Result.fail(`held payments are not available on ${found.chain.chainId}: no paymentEscrow is configured`)
    return Result.succeed({ runtime, token: found.token })
  }

  /** Resolves `payment` against the configuration; the failure is a phrase for messages. */
  const resolve = (payment: EscrowedPayment): Result.Result<Target, string> =>
    Result.flatMap(runtimeOf(payment.asset), ({ runtime, token }) => {
      if (isNativeToken(token)) return Result.fail("a held payment is paid in a token, not in the chain's native asset")
      const account = Caip.validateAccountId(payment.account)
      if (Result.isFailure(account)) return Result.fail(`the payer ${payment.account} is not a CAIP-10 account: ${account.failure}`)
      if (account.success.chainId !== runtime.chainId) return Result.fail(`the payer ${payment.account} is not on ${runtime.chainId}`)
      return Result.map(
        heldTarget(runtime, account.success.address as Address, token, payment.authorizeBefore, payment.salt, payment.terms),
        (held) => ({ ...held, runtime })
      )
    })

  const target = <E>(payment: EscrowedPayment, refuse: (chainId: string, message: string) => E): Effect.Effect<Target, E> =>
    Effect.mapError(Effect.fromResult(resolve(payment)), (message) => refuse(chainOf(payment.asset), message))
  const notSent = (chainId: string, message: string) => new SubmissionRefused({ chainId, message })
  const unreadable = (chainId: string, message: string) => new ChainUnavailable({ chainId, message })

  /** Sends `data` to the escrow from the executor once its simulation passes; `call` names it in messages. */
  const send = (found: Target, call: string, data: Hex) =>
    sendSimulated(found.runtime, found.terms.payer, { to: found.address, data }, `${call} ${found.hash}`).pipe(
      Effect.catchTag("CallReverted", (revert) => Effect.fail(notSent(found.runtime.chainId, refusalText(call, revert))))
    )

  const capture = Effect.fn("EscrowChain.capture")(function*(payment: EscrowedPayment, amount: bigint, capturedBefore: bigint) {
    const found = yield* target(payment, notSent)
    if (amount <= 0n || capturedBefore < 0n) return yield* notSent(found.runtime.chainId, "the amount or the amount captured before is out of range")
    return yield* send(found, "capture", escrowCalls.capture(found.terms, amount, capturedBefore))
  })

  const voidHeld = Effect.fn("EscrowChain.void")(function*(payment: EscrowedPayment) {
    const found = yield* target(payment, notSent)
    return yield* send(found, "void", escrowCalls.void(found.terms))
  })

  const observe = (asset: string, txHash: string) => {
    const found = runtimeOf(asset)
    if (Result.isFailure(found) || !isTxHash(txHash)) {
      const why = Result.isFailure(found) ? found.failure : `${txHash} is not a transaction hash`
      return Effect.as(Effect.logWarning(`observe an escrow transaction: ${why}`), "unknown" as const)
    }
    const { runtime } = found.success
    // The domain knows which transaction it sent: mined, final and successful is all there is to know.
    return observeStanding(runtime, txHash, receiptStanding(runtime, txHash, () => Effect.succeed(true)), options.observeTimeout, "EscrowChain.observe")
  }

  const balance = Effect.fn("EscrowChain.balance")(function*(payment: EscrowedPayment) {
    const found = yield* target(payment, unreadable)
    const { chainId, client, settings } = found.runtime
    const [held, captured] = yield* readChain(
      chainId,
      Effect.gen(function*() {
        const head = yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
        const depth = BigInt(settings.requiredConfirmations - 1)
        const blockNumber = head > depth ? head - depth : 0n
        return yield* rpc(chainId, "payments", () =>
          client.readContract({ address: found.address, abi: PaymentEscrow.abi, functionName: "payments", args: [found.hash], blockNumber }))
      })
    )
    return { held, captured }
  })

  const chainTime = Effect.fn("EscrowChain.chainTime")(function*(asset: string) {
    const found = runtimeOf(asset)
    if (Result.isFailure(found)) return yield* unreadable(chainOf(asset), found.failure)
    const { chainId, client } = found.success.runtime
    const latest = yield* readChain(chainId, rpc(chainId, "eth_getBlockByNumber", () => client.getBlock({ blockTag: "latest" })))
    return Number(latest.timestamp)
  })

  return EscrowChain.of({ capture, void: voidHeld, observe, balance, chainTime })
})

/** The port with custom tuning. */
export const layerWith = (options: EscrowChainOptions): Layer.Layer<EscrowChain, ChainConfigError, ChainsConfig> => Layer.effect(EscrowChain, make(options))

/** The port with default tuning; needs `ChainsConfig`. */
export const layer: Layer.Layer<EscrowChain, ChainConfigError, ChainsConfig> = layerWith({})
