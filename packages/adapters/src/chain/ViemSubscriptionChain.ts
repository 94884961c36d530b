/**
 * The domain's `SubscriptionChain` port on EVM chains, with viem, over the chain's `SubscriptionVault`
 * (`subscriptionVault` in its configuration; the contract's rules are in docs/contracts.md, its hashes,
 * clone address, permit and calls in `SubscriptionVault.ts`). The terms' operator is the chain's executor.
 *
 * - `permitTypedData` / `verifyPermit`: the Permit2 `PermitSingle` the payer signs for the
 *   subscription's clone, with the payer's current Permit2 nonce for it; checked like a pull payment's
 *   signature (ECDSA recovery, else the payer's EIP-1271 `isValidSignature`; `VerifyAuthorization.ts`).
 * - `subscribe` / `charge` / `cancel`: simulated from the executor, then sent through its one nonce
 *   sequence within its gas policy (`SubmitAuthorization.ts`; the ceiling is a pull payment's, which a
 *   charge is). A simulation that reverts is refused, naming the contract's error; nothing is sent.
 *   A subscribe retried after a crash between its send and its record is refused (`AlreadySubscribed`):
 *   the domain reads `onChain` then.
 * - `observe`: like a transfer's (`ObserveTransfer.ts`), a call that succeeded counting only when the
 *   vault logged it for these terms.
 * - `onChain` / `charged`: the vault's `subscriptionOf` and `charged`.
 *
 * Wiring, as the gateway's:
 *
 * ```ts
 * ViemSubscriptionChain.layer.pipe(
 *   Layer.provide(ChainConfig.layerFromEnv),           // or LocalChain.layer(), which deploys a vault
 *   Layer.provide(SignatureRecovery.layerWorkers())
 * )
 * ```
 *
 * @module
 */
import {
  Caip,
  ChainUnavailable,
  ChargeRefused,
  type ChargeRefusal,
  ParamsValidation,
  SubmissionRefused,
  SubscriptionChain,
  type SubscriptionTerms
} from "@paygate/domain"
import { Clock, Effect, Layer, Result, type Scope } from "effect"
import { type Address, erc20Abi, type Hex, hashTypedData, maxUint160, parseEventLogs, type PublicClient, type TransactionReceipt } from "viem"
import { type ChainConfigError, type Chains, ChainsConfig, lookupAsset } from "./ChainConfig.ts"
import * as ChainRuntime from "./ChainRuntime.ts"
import { revertDecoder } from "./ContractRevert.ts"
import { SubscriptionSpender, SubscriptionVault, TestPermit2 } from "./contracts.generated.ts"
import { sameAddress } from "./EvmAddress.ts"
import { isNativeToken } from "./NativeAsset.ts"
import { isTxHash, observeStanding, receiptStanding } from "./ObserveTransfer.ts"
import { permit2Address, permitSingleJson } from "./Permit2.ts"
import { rpc } from "./RpcCall.ts"
import { isHexBytes } from "./Signature.ts"
import { SignatureRecovery } from "./SignatureRecovery.ts"
import { type CallReverted, readChain, sendSimulated } from "./SubmitAuthorization.ts"
import {
  subscriptionCalls,
  subscriptionPermitTypedData,
  subscriptionSpender,
  type SubscriptionTerms as VaultTerms,
  subscriptionTermsHash
} from "./SubscriptionVault.ts"
import { tokenBalance } from "./TokenReads.ts"
import { checkSigner } from "./VerifyAuthorization.ts"
import type { GatewayOptions } from "./ViemChainGateway.ts"

/** Tuning of {@link make}, as the gateway's; every field has a default. */
export type SubscriptionChainOptions = Pick<GatewayOptions, "rpcTimeout" | "observeTimeout">

/** A subscription's terms as the vault of their chain holds them. */
interface Target {
  readonly runtime: ChainRuntime.ChainRuntime
  readonly vault: Address
  readonly terms: VaultTerms
  /** The vault's `termsHash`. */
  readonly hash: Hex
}

const maxUint48 = 2 ** 48 - 1
/** Whether `value` is a Unix time the contracts can take (uint256 from a safe integer). */
const isTime = (value: number) => Number.isSafeInteger(value) && value >= 0
const notATime = "The permit's sigDeadline is not a Unix time in seconds."
const inUint48 = (value: number, least: number) => Number.isSafeInteger(value) && value >= least && value <= maxUint48

/** The CAIP-2 chain of an asset id, for errors about terms that do not resolve. */
const chainOf = (asset: string) => asset.slice(0, asset.includes("/") ? asset.indexOf("/") : undefined)

/** Resolves `terms` against the configuration; the failure is a phrase for error messages. */
const resolve = (
  chains: Chains,
  runtimes: ReadonlyMap<string, ChainRuntime.ChainRuntime>,
  terms: SubscriptionTerms
): Result.Result<Target, string> => {
  const found = lookupAsset(chains, terms.asset)
  if (found === undefined) return Result.fail(`asset ${terms.asset} is not configured`)
  const chainId = found.chain.chainId
  const vault = found.chain.subscriptionVault
  const runtime = runtimes.get(chainId)
  if (vault === undefined || runtime === undefined) {
    return Result.fail(`subscriptions are not available on ${chainId}: no subscriptionVault is configured`)
  }
  if (isNativeToken(found.token)) return Result.fail("a subscription is paid in a token, not in the chain's native asset")
  const account = (label: string, id: string): Result.Result<Address, string> => {
    const parsed = Caip.validateAccountId(id)
    if (Result.isFailure(parsed)) return Result.fail(`the ${label} ${id} is not a CAIP-10 account: ${parsed.failure}`)
    if (parsed.success.chainId !== chainId) return Result.fail(`the ${label} ${id} is not on ${chainId}`)
    return Result.succeed(parsed.success.address as Address)
  }
  const payer = account("payer", terms.payer)
  if (Result.isFailure(payer)) return Result.fail(payer.failure)
  const receiver = account("receiver", terms.receiver)
  if (Result.isFailure(receiver)) return Result.fail(receiver.failure)
  // Values the contract's types cannot hold would not even encode.
  if (terms.amountPerPeriod <= 0n || terms.amountPerPeriod > maxUint160) return Result.fail("the amount per period is out of range")
  if (!inUint48(terms.periodSeconds, 1) || !inUint48(terms.start, 0) || (terms.periods !== null && !inUint48(terms.periods, 1))) {
    return Result.fail("the period, start or number of periods is out of range")
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(terms.salt)) return Result.fail("the salt is not 32 bytes of hex")
  const vaultTerms: VaultTerms = {
    operator: runtime.executor.address,
    payer: payer.success,
    receiver: receiver.success,
    token: found.token,
    amountPerPeriod: terms.amountPerPeriod,
    period: terms.periodSeconds,
    start: terms.start,
    periods: terms.periods ?? 0,
    salt: terms.salt as Hex
  }
  return Result.succeed({ runtime, vault, terms: vaultTerms, hash: subscriptionTermsHash(runtime.chainNumber, vault, vaultTerms) })
}

// Permit2's errors (TestPermit2 carries the real contract's) and the clone's, beside the vault's: a charge
// reverts with whichever refused it. The token's own revert strings decode as `Error(string)`.
const decodeRevert = revertDecoder(SubscriptionVault.abi, SubscriptionSpender.abi, TestPermit2.abi)
const vaultErrors = new Set<string>(SubscriptionVault.abi.flatMap((item) => (item.type === "error" ? [item.name] : [])))

/** Why the vault refused `call`, in one line: its error when it could be read, else the node's message. */
const refusalText = (call: string, revert: CallReverted) => `the vault refuses ${call}: ${decodeRevert(revert)?.text ?? revert.message}`

/** Builds the port over the configured chains that have a `subscriptionVault`. */
export const make = Effect.fn("ViemSubscriptionChain.make")(function*(
  options: SubscriptionChainOptions = {}
): Effect.fn.Return<SubscriptionChain["Service"], ChainConfigError, ChainsConfig | SignatureRecovery | Scope.Scope> {
  const chains = yield* ChainsConfig
  const recovery = yield* SignatureRecovery
  const built = yield* Effect.forEach(
    chains.settings.chains.filter((settings) => settings.subscriptionVault !== undefined),
    (settings) => ChainRuntime.make(settings, { rpcTimeout: options.rpcTimeout }),
    { concurrency: "unbounded" }
  )
  const runtimes = new Map(built.map((runtime) => [runtime.chainId, runtime]))

  // Each method fails as its type allows: the signing steps refuse the caller's terms (`ParamsValidation`),
  // the sends are refused (nothing sent), and the reads can only say the chain cannot answer for them now,
  // which is true of terms whose chain lost its vault in the configuration until it is restored.
  const target = <E>(terms: SubscriptionTerms, refuse: (chainId: string, message: string) => E): Effect.Effect<Target, E> =>
    Effect.mapError(Effect.fromResult(resolve(chains, runtimes, terms)), (message) => refuse(chainOf(terms.asset), message))
  const invalid = (_: string, message: string) => new ParamsValidation({ message })
  const notSent = (chainId: string, message: string) => new SubmissionRefused({ chainId, message })
  const chargeOther = (chainId: string, message: string) => new ChargeRefused({ chainId, reason: "other", message })
  const unreadable = (chainId: string, message: string) => new ChainUnavailable({ chainId, message })

  /** A read of the terms' chain. */
  const read = <A>(found: Target, operation: string, call: (client: PublicClient) => Promise<A>) =>
    readChain(found.runtime.chainId, rpc(found.runtime.chainId, operation, () => call(found.runtime.client)))

  /** How much of the token the payer lets Permit2 move: no charge passes without at least a period's amount. */
  const permit2Approval = (found: Target) =>
    read(found, "allowance", (client) =>
      client.readContract({ address: found.terms.token, abi: erc20Abi, functionName: "allowance", args: [found.terms.payer, permit2Address] }))

  /** The permit the payer signs for `found` with Permit2's current nonce of the payer, token and clone (0 until one was used). */
  const permitOf = (found: Target, sigDeadline: number) =>
    Effect.map(
      read(found, "allowance", (client) =>
        client.readContract({
          address: permit2Address,
          abi: TestPermit2.abi,
          functionName: "allowance",
          args: [found.terms.payer, found.terms.token, subscriptionSpender(found.vault, found.hash)]
        })),
      ([, , nonce]) => subscriptionPermitTypedData(found.runtime.chainNumber, found.vault, found.terms, nonce, BigInt(sigDeadline))
    )

  const permitTypedData = Effect.fn("SubscriptionChain.permitTypedData")(function*(terms: SubscriptionTerms, sigDeadline: number) {
    const found = yield* target(terms, invalid)
    if (!isTime(sigDeadline)) return yield* new ParamsValidation({ message: notATime })
    const typedData = yield* permitOf(found, sigDeadline)
    return permitSingleJson(found.runtime.chainNumber, typedData.message)
  })

  const verifyPermit = Effect.fn("SubscriptionChain.verifyPermit")(function*(terms: SubscriptionTerms, sigDeadline: number, signature: string) {
    const found = yield* target(terms, invalid)
    if (!isTime(sigDeadline)) return yield* new ParamsValidation({ message: notATime })
    // Permit2 takes the signature up to its deadline's second, by the chain's clock; ours is the wall's.
    if (sigDeadline < Math.floor((yield* Clock.currentTimeMillis) / 1000)) return yield* new ParamsValidation({ message: "The permit's sigDeadline has passed." })
    if (!isHexBytes(signature) || signature.length <= 2) return yield* new ParamsValidation({ message: "The signature is not 0x-prefixed hex." })
    const hash = hashTypedData(yield* permitOf(found, sigDeadline))
    yield* checkSigner({ recovery }, found.runtime, found.terms.payer, hash, signature, "The permit was not signed by the subscription's payer.").pipe(
      Effect.catchTag("ChainRpcError", (error) => Effect.fail(unreadable(found.runtime.chainId, `Cannot read ${found.runtime.chainId}: ${error.message}`)))
    )
    // Without it the first charge would find the allowance revoked: refused now, while the buyer can still approve.
    if ((yield* permit2Approval(found)) < terms.amountPerPeriod) {
      return yield* new ParamsValidation({
        message: `The payer has not approved Permit2 (${permit2Address}) to move at least one period's amount of the token; approve it, then subscribe.`
      })
    }
  })

  const subscribe = Effect.fn("SubscriptionChain.subscribe")(function*(terms: SubscriptionTerms, sigDeadline: number, signature: string) {
    const found = yield* target(terms, notSent)
    const { chainId } = found.runtime
    if (!isHexBytes(signature) || !isTime(sigDeadline)) {
      return yield* notSent(chainId, "the permit's signature or sigDeadline is malformed")
    }
    const { message: permit } = yield* permitOf(found, sigDeadline)
    const data = subscriptionCalls.subscribe(found.terms, permit, signature)
    return yield* sendSimulated(found.runtime, found.terms.payer, { to: found.vault, data }, `subscribe ${found.hash}`).pipe(
      Effect.catchTag("CallReverted", (revert) => Effect.fail(notSent(chainId, refusalText("subscribe", revert))))
    )
  })

  const cancel = Effect.fn("SubscriptionChain.cancel")(function*(terms: SubscriptionTerms) {
    const found = yield* target(terms, notSent)
    const { chainId } = found.runtime
    return yield* sendSimulated(found.runtime, found.terms.payer, { to: found.vault, data: subscriptionCalls.cancel(found.terms) }, `cancel ${found.hash}`).pipe(
      Effect.catchTag("CallReverted", (revert) => Effect.fail(notSent(chainId, refusalText("cancel", revert))))
    )
  })

  const readCharged = (found: Target, periodIndex: number) =>
    read(found, "charged", (client) =>
      client.readContract({ address: found.vault, abi: SubscriptionVault.abi, functionName: "charged", args: [found.hash, BigInt(periodIndex)] }))

  /** Why a charge's simulation reverted, for the domain: see `ChargeRefusal`. */
  const chargeRefusal = Effect.fnUntraced(function*(terms: SubscriptionTerms, found: Target, periodIndex: number, amount: bigint, revert: CallReverted) {
    const decoded = decodeRevert(revert)
    const refused = (reason: ChargeRefusal) => new ChargeRefused({ chainId: found.runtime.chainId, reason, message: refusalText("charge", revert) })
    switch (decoded?.name) {
      case "NotSubscribed":
      case "SubscriptionCancelled":
        return refused("closed")
      case "OverCap": {
        // Over the cap because the period already holds charges (ours, sent before), not because of the amount alone.
        const already = yield* readCharged(found, periodIndex)
        return refused(already > 0n && amount <= found.terms.amountPerPeriod ? "charged" : "other")
      }
      case "AllowanceExpired":
      case "InsufficientAllowance":
        return refused("revoked")
      case "PeriodNotStarted":
        return refused("early")
    }
    if (decoded !== undefined && vaultErrors.has(decoded.name)) return refused("other")
    // Permit2's or the token's refusal to move the tokens: a short payer, when the balance says so; a
    // payer who took back the token's approval of Permit2 has revoked every Permit2 allowance at once.
    const balance = yield* tokenBalance({ chains, runtimes }, terms.asset, terms.payer)
    if (balance < amount) return refused("insufficient_funds")
    const approved = yield* permit2Approval(found)
    return refused(approved < amount ? "revoked" : "other")
  })

  const charge = Effect.fn("SubscriptionChain.charge")(function*(terms: SubscriptionTerms, periodIndex: number, amount: bigint) {
    const found = yield* target(terms, chargeOther)
    const { chainId } = found.runtime
    if (!Number.isSafeInteger(periodIndex) || periodIndex < 0 || amount < 0n || amount > maxUint160) {
      return yield* chargeOther(chainId, "the period index or the amount is out of range")
    }
    const data = subscriptionCalls.charge(found.terms, BigInt(periodIndex), amount)
    return yield* sendSimulated(found.runtime, found.terms.payer, { to: found.vault, data }, `charge ${found.hash} period ${periodIndex}`).pipe(
      Effect.catchTags({
        CallReverted: (revert) => Effect.flatMap(chargeRefusal(terms, found, periodIndex, amount, revert), Effect.fail),
        SubmissionRefused: (refusal) => Effect.fail(chargeOther(chainId, refusal.message))
      })
    )
  })

  const observe = (terms: SubscriptionTerms, txHash: string) => {
    const found = resolve(chains, runtimes, terms)
    if (Result.isFailure(found) || !isTxHash(txHash)) {
      const why = Result.isFailure(found) ? found.failure : `${txHash} is not a transaction hash`
      return Effect.as(Effect.logWarning(`observe a subscription's transaction: ${why}`), "unknown" as const)
    }
    const { runtime, vault, hash } = found.success
    // Success alone would count any transaction of that hash; the vault's log ties it to these terms.
    const logged = (receipt: TransactionReceipt) =>
      Effect.succeed(parseEventLogs({ abi: SubscriptionVault.abi, logs: receipt.logs }).some((log) => sameAddress(log.address, vault) && log.args.termsHash === hash))
    return observeStanding(runtime, txHash, receiptStanding(runtime, txHash, logged), options.observeTimeout, "SubscriptionChain.observe")
  }

  const onChain = Effect.fn("SubscriptionChain.onChain")(function*(terms: SubscriptionTerms) {
    const found = yield* target(terms, unreadable)
    const [subscribed, cancelled] = yield* read(found, "subscriptionOf", (client) =>
      client.readContract({ address: found.vault, abi: SubscriptionVault.abi, functionName: "subscriptionOf", args: [found.hash] }))
    return { subscribed, cancelled }
  })

  const charged = Effect.fn("SubscriptionChain.charged")(function*(terms: SubscriptionTerms, periodIndex: number) {
    const found = yield* target(terms, unreadable)
    if (!Number.isSafeInteger(periodIndex) || periodIndex < 0) return 0n
    return yield* readCharged(found, periodIndex)
  })

  return SubscriptionChain.of({ chains: [...runtimes.keys()], permitTypedData, verifyPermit, subscribe, charge, cancel, observe, onChain, charged })
})

/** The port with custom tuning. */
export const layerWith = (
  options: SubscriptionChainOptions
): Layer.Layer<SubscriptionChain, ChainConfigError, ChainsConfig | SignatureRecovery> => Layer.effect(SubscriptionChain, make(options))

/** The port with default tuning; needs `ChainsConfig` and `SignatureRecovery`. */
export const layer: Layer.Layer<SubscriptionChain, ChainConfigError, ChainsConfig | SignatureRecovery> = layerWith({})
