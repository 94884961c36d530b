/**
 * Submits a verified pull payment: the chain's executor calls the token's EIP-3009
 * `transferWithAuthorization` (the `v, r, s` form for 65-byte signatures, which every EIP-3009 token
 * has; the `bytes signature` form, FiatToken v2.2+, for contract-wallet signatures) and pays the gas.
 * A held payment's goes through the chain's escrow instead: `authorize(terms, value, signature)`, which
 * pulls the funds with the token's `receiveWithAuthorization`; its authorization's nonce is the hash
 * of the terms, and that is the nonce its use is looked up by.
 *
 * Nothing is sent that cannot succeed or costs more than the chain's gas policy allows
 * (`GasPolicy.ts`): the transaction is simulated first (`eth_call`, then `eth_estimateGas`, both
 * capped at the ceiling for an authorization), and a simulation that reverts (payer short of funds, authorization used or
 * expired), an estimate over the ceiling, or a budget that is spent fails with the domain's
 * `SubmissionRefused`, no gas paid. The gas limit sent is the estimate plus headroom, never above
 * the ceiling.
 *
 * When the chain cannot be reached after a few attempts, `submit` fails with the domain's
 * `ChainUnavailable`, and the executor tries again later. Such a failure can leave a broadcast
 * behind whose answer was lost; so every submission first asks the token whether the authorization
 * was used already (`authorizationState`) and, if so, answers the transaction that used it (its
 * `AuthorizationUsed` log) instead of sending one that could only revert. A proof that cannot be
 * encoded is a defect ({@link ChainSubmitError}): confirm verified it.
 *
 * Other calls the executor makes for a payer (the subscription vault's) go through the same checks
 * with {@link sendSimulated}, which hands a reverting simulation's error data back to be read.
 *
 * @module
 */
import { type AuthorizationProof, ChainUnavailable, ParamsValidation, SubmissionRefused } from "@paygate/domain"
import { Duration, Effect, Option, Result, Schedule, Schema } from "effect"
import { type Address, BaseError, encodeFunctionData, type Hash, type Hex } from "viem"
import type { Chains } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { ProcessMetrics } from "@paygate/observability"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { escrowCalls } from "./PaymentEscrow.ts"
import { type ProofTarget, resolveTarget } from "./ProofTarget.ts"
import { type ChainRpcError, describeError, rpc } from "./RpcCall.ts"
import { isHexBytes, parseEcdsaSignature } from "./Signature.ts"

/** Submitting failed: the chain could not be reached, or the proof could not be encoded. */
export class ChainSubmitError extends Schema.TaggedError<ChainSubmitError>()("ChainSubmitError", {
  message: Schema.String
}) {}

/** What {@link submitAuthorization} works with. */
export interface SubmitContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
}

/** Headroom over the estimate: state can change between estimate and inclusion. */
const withHeadroom = (gas: bigint) => gas + gas / 4n
const retries = Schedule.exponential(Duration.millis(200))
/** How nodes say that an estimate capped at a gas limit needs more. */
const overCeiling = /gas required exceeds|out of gas|gas limit reached|intrinsic gas too low/i

const isNonce = (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text)

/** The `transferWithAuthorization` calldata of a proof (`to`: the collection address); anyone holding it can send it. */
export const authorizationCalldata = (proof: AuthorizationProof, payer: Address, to: Address): Result.Result<Hex, string> => {
  if (!isNonce(proof.nonce)) return Result.fail("the nonce is not 32 bytes of hex")
  if (!isHexBytes(proof.signature)) return Result.fail("the signature is not hex")
  const common = [payer, to, proof.value, 0n, BigInt(proof.validBefore), proof.nonce] as const
  const ecdsa = parseEcdsaSignature(proof.signature)
  return Result.succeed(
    Result.isSuccess(ecdsa)
      ? encodeFunctionData({
        abi: eip3009TokenAbi,
        functionName: "transferWithAuthorization",
        args: [...common, ecdsa.success.v, ecdsa.success.r, ecdsa.success.s]
      })
      : encodeFunctionData({
        abi: eip3009TokenAbi,
        functionName: "transferWithAuthorization",
        args: [...common, proof.signature]
      })
  )
}

/** How far back (blocks) to look for the transaction that used an authorization: well past any `validBefore`. */
const usedLookbackBlocks = 50_000n

/** The transaction that used the authorization (`payer`, `nonce`) on `token`, if it was used. */
const earlierUse = (runtime: ChainRuntime, token: Address, payer: Address, nonce: Hex) =>
  Effect.gen(function*() {
    const { chainId, client } = runtime
    const used = yield* rpc(chainId, "authorizationState", () =>
      client.readContract({ address: token, abi: eip3009TokenAbi, functionName: "authorizationState", args: [payer, nonce] }))
    if (!used) return undefined
    const head = yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
    const logs = yield* rpc(chainId, "eth_getLogs", () =>
      client.getLogs({
        address: token,
        event: eip3009TokenAbi.find((item) => item.type === "event" && item.name === "AuthorizationUsed")!,
        args: { authorizer: payer, nonce },
        fromBlock: head > usedLookbackBlocks ? head - usedLookbackBlocks : 0n,
        toBlock: head
      }))
    return logs[0]?.transactionHash ?? undefined
  })

/** Submits a pull payment through the chain's executor; answers the transaction hash. */
export const submitAuthorization = Effect.fn("ChainGateway.submit")(function*(
  context: SubmitContext,
  proof: AuthorizationProof
): Effect.fn.Return<Hash, ChainUnavailable | SubmissionRefused> {
  const target = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot submit: ${error.message}` })),
    Effect.orDie
  )
  const { runtime, token, payer, escrow } = target
  const call = escrow === undefined
    ? Result.map(authorizationCalldata(proof, payer, runtime.settings.collectionAddress), (data) => ({ to: token, data }))
    : isHexBytes(proof.signature)
    ? Result.succeed({ to: escrow.address, data: escrowCalls.authorize(escrow.terms, proof.value, proof.signature) })
    : Result.fail("the signature is not hex")
  const { to, data } = yield* Effect.fromResult(call).pipe(
    Effect.mapError((reason) => new ChainSubmitError({ message: `Cannot submit: ${reason}.` })),
    Effect.orDie
  )
  return yield* sendUnlessUsed(runtime, payer, { to, data }, earlierUse(runtime, token, payer, signedNonce(target, proof)))
})

/** The nonce the payer signed: the quote's, or for a held payment the hash of its terms. */
const signedNonce = (target: ProofTarget, proof: AuthorizationProof): Hex => target.escrow?.hash ?? (proof.nonce as Hex)

/**
 * The executor's simulation of a call reverts (or its estimate does): nothing was sent. `data` is what
 * the contract reverted with (a custom error to decode), when the node passed it on.
 */
export class CallReverted extends Schema.TaggedError<CallReverted>()("CallReverted", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  message: Schema.String,
  data: Schema.optionalKey(Schema.String)
}) {}

/** What a reverted call returned, from viem's error; "0x" (a bare revert, or gas run out) says nothing. */
const revertData = (error: unknown): Hex | undefined => {
  const found = error instanceof BaseError
    ? error.walk((e) => {
      const data = (e as { readonly data?: unknown }).data
      return typeof data === "string" && /^0x[0-9a-fA-F]{8,}$/.test(data)
    })
    : null
  return found === null ? undefined : (found as unknown as { readonly data: Hex }).data
}

/**
 * Simulates `call` for `payer` within the ceiling, then sends it within the gas budget; see the
 * module documentation. `what` names the call in messages.
 */
const simulateAndSend = (
  runtime: ChainRuntime,
  payer: Address,
  call: { readonly to: Address; readonly data: Hex },
  what: string,
  blockTag?: "pending"
): Effect.Effect<Hash, ChainRpcError | SubmissionRefused | CallReverted> =>
  Effect.gen(function*() {
    const { chainId, client, executor } = runtime
    const ceiling = BigInt(runtime.gas.authorization)
    const refuse = <E extends { readonly message: string }>(reason: "reverts" | "ceiling", error: E) =>
      ProcessMetrics.recordExecutorGasRefused(chainId, reason).pipe(
        // A short balance is routine (retried while the authorization is valid); a ceiling is worth a look.
        Effect.andThen((reason === "ceiling" ? Effect.logWarning : Effect.logInfo)(`submit on ${chainId}: not sent: ${error.message}`)),
        Effect.andThen(Effect.fail(error))
      )
    // Simulated first with at most the ceiling's gas: one bounded execution, whatever the payer's
    // wallet does; only then estimated (capped too), which runs it several times. The simulation's
    // revert data is kept from viem's error, which the RPC error would drop.
    const capped = { account: executor.address, ...call, gas: ceiling, ...(blockTag === undefined ? {} : { blockTag }) }
    const estimated = yield* Effect.result(
      rpc(chainId, "eth_call", () =>
        client.call(capped).then(
          () => undefined,
          (error: unknown) => {
            const data = revertData(error)
            const message = describeError(error)
            if (data === undefined || overCeiling.test(message)) throw error
            return { data, message }
          }
        )).pipe(
          Effect.flatMap((reverted): Effect.Effect<bigint, ChainRpcError | CallReverted> =>
            reverted === undefined
              ? rpc(chainId, "eth_estimateGas", () => client.estimateGas(capped))
              : Effect.fail(new CallReverted({ chainId, message: `${what} reverts with at most ${ceiling} gas (${reverted.message})`, data: reverted.data }))
          )
        )
    )
    if (Result.isFailure(estimated)) {
      const error = estimated.failure
      if (error._tag === "CallReverted") return yield* refuse("reverts", error)
      if (error.failure === "unavailable") return yield* error
      return yield* overCeiling.test(error.message)
        ? refuse("ceiling", new SubmissionRefused({ chainId, message: `${what} needs more than ${ceiling} gas (${error.message})` }))
        : refuse("reverts", new CallReverted({ chainId, message: `${what} reverts with at most ${ceiling} gas (${error.message})` }))
    }
    const estimate = estimated.success
    if (estimate > ceiling) return yield* refuse("ceiling", new SubmissionRefused({ chainId, message: `${what} needs ${estimate} gas, over the ceiling of ${ceiling}` }))
    const limit = withHeadroom(estimate) > ceiling ? ceiling : withHeadroom(estimate)
    const refusal = yield* runtime.budget.reserve(payer, limit)
    if (refusal !== undefined) return yield* new SubmissionRefused({ chainId, message: `the executor's gas budget (${refusal}) is spent` })
    return yield* executor.send({ ...call, gas: limit })
  })

/** Retries `send` while the chain does not answer, then gives up with `ChainUnavailable`. */
const retryingSend = (
  chainId: string,
  send: Effect.Effect<Hash, ChainRpcError | SubmissionRefused | CallReverted>
): Effect.Effect<Hash, ChainUnavailable | SubmissionRefused | CallReverted> =>
  send.pipe(
    Effect.retry({ schedule: retries, times: 3, while: (error) => error._tag === "ChainRpcError" && error.failure === "unavailable" }),
    Effect.catchTag("ChainRpcError", (error) => Effect.fail(new ChainUnavailable({ chainId, message: `Cannot submit on ${chainId}: ${error.message}` })))
  )

/**
 * Sends `call` (a contract call made for `payer`) through the chain's executor once its simulation
 * passes; a simulation that reverts fails with {@link CallReverted}, for the caller to read. `what`
 * names the call in messages. It is simulated on the pending block: the transaction lands in a
 * block to come, whose time is what the contract's periods and deadlines read; the latest block's
 * may trail it (on an idle local chain, until the next transaction).
 */
export const sendSimulated = (
  runtime: ChainRuntime,
  payer: Address,
  call: { readonly to: Address; readonly data: Hex },
  what: string
): Effect.Effect<Hash, ChainUnavailable | SubmissionRefused | CallReverted> =>
  retryingSend(runtime.chainId, simulateAndSend(runtime, payer, call, what, "pending"))

/**
 * Sends `call` (a pull payment's transfer) through the chain's executor, unless `used` finds the
 * transaction that already made it; see the module documentation for the checks before sending.
 */
export const sendUnlessUsed = (
  runtime: ChainRuntime,
  payer: Address,
  call: { readonly to: Address; readonly data: Hex },
  used: Effect.Effect<Hash | undefined, ChainRpcError>
): Effect.Effect<Hash, ChainUnavailable | SubmissionRefused> => {
  const { chainId } = runtime
  const send = Effect.gen(function*() {
    const earlier = yield* used
    if (earlier !== undefined) {
      yield* Effect.logInfo(`submit on ${chainId}: the authorization was already used by ${earlier}; following that transaction`)
      return earlier
    }
    return yield* simulateAndSend(runtime, payer, call, `the authorization of ${payer}`)
  })
  return retryingSend(chainId, send).pipe(
    Effect.catchTag("CallReverted", (error) => Effect.fail(new SubmissionRefused({ chainId, message: error.message })))
  )
}

/** A read of `chainId`, retried while the chain does not answer, then given up with `ChainUnavailable`. */
export const readChain = <A>(chainId: string, read: Effect.Effect<A, ChainRpcError>): Effect.Effect<A, ChainUnavailable> =>
  read.pipe(
    Effect.retry({ schedule: retries, times: 3, while: (error) => error.failure === "unavailable" }),
    Effect.mapError((error) => new ChainUnavailable({ chainId, message: `Cannot read ${chainId}: ${error.message}` }))
  )

/** The transaction that used a pull payment's authorization, if one did (`ChainGateway.usedBy`). */
export const authorizationUse = Effect.fn("ChainGateway.usedBy")(function*(
  context: Pick<SubmitContext, "chains" | "runtimes">,
  proof: AuthorizationProof,
  /** How the authorization's use is found: EIP-3009's by default. */
  find: (runtime: ChainRuntime, token: Address, payer: Address, nonce: Hex) => Effect.Effect<Hash | undefined, ChainRpcError> = earlierUse
): Effect.fn.Return<Option.Option<string>, ChainUnavailable> {
  const target = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot look up: ${error.message}` })),
    Effect.orDie
  )
  const { runtime, token, payer } = target
  if (!isNonce(proof.nonce)) return Option.none()
  return yield* readChain(runtime.chainId, Effect.map(find(runtime, token, payer, signedNonce(target, proof)), Option.fromNullishOr))
})

/** Whether the chain is past the authorization's `validBefore`: its latest block is stamped at or after it (`ChainGateway.expiredOnChain`). */
export const authorizationExpired = Effect.fn("ChainGateway.expiredOnChain")(function*(
  context: Pick<SubmitContext, "chains" | "runtimes">,
  proof: AuthorizationProof
): Effect.fn.Return<boolean, ChainUnavailable> {
  const { runtime } = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot look up: ${error.message}` })),
    Effect.orDie
  )
  const latest = yield* readChain(runtime.chainId, rpc(runtime.chainId, "eth_getBlockByNumber", () => runtime.client.getBlock({ blockTag: "latest" })))
  return latest.timestamp >= BigInt(proof.validBefore)
})
