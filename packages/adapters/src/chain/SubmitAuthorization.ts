/**
 * Submits a verified pull payment: the chain's executor calls the token's EIP-3009
 * `transferWithAuthorization` (the `v, r, s` form for 65-byte signatures, which every EIP-3009 token
 * has; the `bytes signature` form, FiatToken v2.2+, for contract-wallet signatures) and pays the gas.
 *
 * Gas is estimated first. When the estimate reverts (authorization already used, expired, payer short
 * of funds), the transaction is still sent with a fixed gas limit: it reverts on chain and `observe`
 * reports `failed`, which is how the domain learns that the authorization is invalid on chain.
 *
 * When the chain cannot be reached after a few attempts, `submit` fails with the domain's
 * `ChainUnavailable`, and the executor tries again later. Such a failure can leave a broadcast
 * behind whose answer was lost; so every submission first asks the token whether the authorization
 * was used already (`authorizationState`) and, if so, answers the transaction that used it (its
 * `AuthorizationUsed` log) instead of sending one that could only revert. A proof that cannot be
 * encoded is a defect ({@link ChainSubmitError}): confirm verified it.
 *
 * @module
 */
import { ChainUnavailable, ParamsValidation, type PaymentProof } from "@paygate/domain"
import { Duration, Effect, Option, Result, Schedule, Schema } from "effect"
import { type Address, encodeFunctionData, type Hash, type Hex } from "viem"
import type { Chains } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { resolveTarget } from "./ProofTarget.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"
import { isHexBytes, parseEcdsaSignature } from "./Signature.ts"

/** Submitting failed: the chain could not be reached, or the proof could not be encoded. */
export class ChainSubmitError extends Schema.TaggedError<ChainSubmitError>()("ChainSubmitError", {
  message: Schema.String
}) {}

/** What {@link submitAuthorization} works with. */
export interface SubmitContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
  /** Gas limit when the estimate reverts; default 150,000 (a transferWithAuthorization uses ≈ 60–90k). */
  readonly fallbackGas?: bigint | undefined
}

type AuthorizationProof = Extract<PaymentProof, { readonly _tag: "Authorization" }>

/** Headroom over the estimate: state can change between estimate and inclusion. */
const withHeadroom = (gas: bigint) => gas + gas / 4n
const retries = Schedule.exponential(Duration.millis(200))

const isNonce = (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text)

/** The `transferWithAuthorization` calldata of a proof. */
const calldata = (proof: AuthorizationProof, payer: Address, to: Address): Result.Result<Hex, string> => {
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
): Effect.fn.Return<Hash, ChainUnavailable> {
  const target = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot submit: ${error.message}` })),
    Effect.orDie
  )
  const { runtime, token, payer } = target
  const data = yield* Effect.fromResult(calldata(proof, payer, runtime.settings.collectionAddress)).pipe(
    Effect.mapError((reason) => new ChainSubmitError({ message: `Cannot submit: ${reason}.` })),
    Effect.orDie
  )
  const { chainId, client, executor } = runtime
  const send = Effect.gen(function*() {
    const used = yield* earlierUse(runtime, token, payer, proof.nonce as Hex)
    if (used !== undefined) {
      yield* Effect.logInfo(`submit on ${chainId}: the authorization was already used by ${used}; following that transaction`)
      return used
    }
    const gas = yield* rpc(chainId, "eth_estimateGas", () =>
      client.estimateGas({ account: executor.address, to: token, data })).pipe(
        Effect.map(withHeadroom),
        Effect.catchIf(
          (error: ChainRpcError) => error.failure === "reverted",
          (error) =>
            Effect.logWarning(
              `submit on ${chainId}: the authorization of ${payer} reverts (${error.message}); sending it to record the failure`
            ).pipe(Effect.as(context.fallbackGas ?? 150_000n))
        )
      )
    return yield* executor.send({ to: token, data, gas })
  })
  return yield* send.pipe(
    Effect.retry({ schedule: retries, times: 3, while: (error) => error.failure === "unavailable" }),
    Effect.mapError((error) => new ChainUnavailable({ chainId, message: `Cannot submit on ${chainId}: ${error.message}` }))
  )
})

/** The transaction that used a pull payment's authorization, if one did (`ChainGateway.usedBy`). */
export const authorizationUse = Effect.fn("ChainGateway.usedBy")(function*(
  context: Pick<SubmitContext, "chains" | "runtimes">,
  proof: AuthorizationProof
): Effect.fn.Return<Option.Option<string>, ChainUnavailable> {
  const { runtime, token, payer } = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot look up: ${error.message}` })),
    Effect.orDie
  )
  if (!isNonce(proof.nonce)) return Option.none()
  return yield* earlierUse(runtime, token, payer, proof.nonce).pipe(
    Effect.map(Option.fromNullishOr),
    Effect.retry({ schedule: retries, times: 3, while: (error) => error.failure === "unavailable" }),
    Effect.mapError((error) => new ChainUnavailable({ chainId: runtime.chainId, message: `Cannot read ${runtime.chainId}: ${error.message}` }))
  )
})
