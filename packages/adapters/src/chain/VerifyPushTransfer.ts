/**
 * Verifies a push payment's proof: the transaction the buyer sent must be, on chain, the option's
 * token transfer: sent by the option's account to the token contract, calldata exactly
 * `transfer(collectionAddress, value)` followed by this payment's 16-byte reference; for the
 * native asset, sent by the option's account to the collection address with exactly `value` wei
 * and the reference as its whole calldata (`NativeAsset.ts`). Inclusion and
 * confirmations are not required here (the receipt may not exist yet; `observe` waits for them),
 * but a transaction already known to have reverted is refused.
 *
 * The node may not have seen a just-broadcast transaction yet: it is looked for during a short window
 * before the proof is refused.
 *
 * @module
 */
import { ParamsValidation, type PaymentProof, traced } from "@paygate/domain"
import { Duration, Effect, Option, Schedule } from "effect"
import { type Hash, type Hex, TransactionNotFoundError, TransactionReceiptNotFoundError } from "viem"
import type { Chains } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { sameAddress } from "./EvmAddress.ts"
import { isNativeToken, nativeTransferProblem } from "./NativeAsset.ts"
import { resolveTarget } from "./ProofTarget.ts"
import { decodeTransferWithReference, isReference } from "./PushTransfer.ts"
import { rpc } from "./RpcCall.ts"

/** A push payment's proof. */
export type TransactionProof = Extract<PaymentProof, { readonly _tag: "Transaction" }>

/** What {@link verifyPushTransfer} works with. */
export interface VerifyPushContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
  /** How long to look for a transaction the node does not know yet; default 5 seconds. */
  readonly lookupWindow?: Duration.Input | undefined
}

const invalid = (message: string) => Effect.fail(new ParamsValidation({ message }))

const isTxHash = (text: string): text is Hash => /^0x[0-9a-fA-F]{64}$/.test(text)

/** `undefined` for "not found", so that only real RPC failures stay failures. */
export const orNotFound = <A>(promise: Promise<A>): Promise<A | undefined> =>
  promise.catch((error: unknown) => {
    if (error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError) return undefined
    throw error
  })

/** The transaction `hash`, looked for during `lookupWindow` (default 5 seconds) while the node does not know it. */
export const findTransaction = (runtime: ChainRuntime, hash: Hash, lookupWindow: Duration.Input | undefined) =>
  rpc(runtime.chainId, "eth_getTransactionByHash", () => orNotFound(runtime.client.getTransaction({ hash }))).pipe(
    Effect.flatMap((tx) => (tx === undefined ? Effect.fail("not found" as const) : Effect.succeed(tx))),
    Effect.retry({
      schedule: Schedule.spaced(Duration.millis(250)),
      while: (error) => error === "not found"
    }),
    Effect.timeoutOption(Duration.fromInputUnsafe(lookupWindow ?? Duration.seconds(5))),
    Effect.catchIf((error) => error === "not found", () => Effect.succeed(Option.none())),
    Effect.orDie
  )

/** Checks a push payment's proof; see the module documentation. */
export const verifyPushTransfer = Effect.fnUntraced(function*(
  context: VerifyPushContext,
  proof: TransactionProof
): Effect.fn.Return<void, ParamsValidation> {
  const { runtime, token, payer } = yield* resolveTarget(context.chains, context.runtimes, proof)
  if (!isReference(proof.reference)) return yield* invalid("The payment reference is not 16 bytes of hex.")
  if (!isTxHash(proof.txHash)) return yield* invalid("The transaction hash is not 32 bytes of hex.")
  const hash = proof.txHash
  const { chainId, client } = runtime

  const found = yield* findTransaction(runtime, hash, context.lookupWindow)
  if (Option.isNone(found)) return yield* invalid("The transaction was not found on chain.")
  const tx = found.value

  if (tx.chainId !== undefined && tx.chainId !== runtime.chainNumber) {
    return yield* invalid("The transaction is for another chain.")
  }
  if (!sameAddress(tx.from, payer)) return yield* invalid("The transaction was not sent by the option's account.")
  if (isNativeToken(token)) {
    const problem = nativeTransferProblem(tx, runtime.settings.collectionAddress, proof.value, proof.reference)
    if (problem !== undefined) return yield* invalid(problem)
  } else {
    const problem = tokenTransferProblem(tx, token, runtime.settings.collectionAddress, proof.value, proof.reference)
    if (problem !== undefined) return yield* invalid(problem)
  }

  const receipt = yield* rpc(chainId, "eth_getTransactionReceipt", () =>
    orNotFound(client.getTransactionReceipt({ hash }))).pipe(Effect.orDie)
  if (receipt?.status === "reverted") return yield* invalid("The transaction reverted.")
}, traced("ChainGateway.verifyPushTransfer"))

/** Why `tx` is not the ERC-20 transfer of `value` to `collection` carrying `reference`; `undefined` when it is. */
const tokenTransferProblem = (
  tx: { readonly to: string | null; readonly input: Hex },
  token: string,
  collection: string,
  value: bigint,
  reference: string
): string | undefined => {
  if (tx.to === null || !sameAddress(tx.to, token)) return "The transaction does not call the option's token."
  const transfer = decodeTransferWithReference(tx.input)
  if (Option.isNone(transfer)) return "The transaction is not an ERC-20 transfer with a 16-byte payment reference appended."
  if (!sameAddress(transfer.value.to, collection)) return "The transfer's recipient is not the collection address."
  if (transfer.value.value !== value) return "The transfer's amount is not the option's amount."
  if (transfer.value.reference !== reference.toLowerCase()) return "The transfer does not carry this payment's reference."
  return undefined
}
