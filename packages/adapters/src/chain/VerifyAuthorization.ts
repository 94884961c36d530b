/**
 * Verifies a pull payment's proof: the EIP-3009 `TransferWithAuthorization` the buyer signed must be
 * exactly the one the option asked for (token, from, to, value, validAfter 0, validBefore, nonce) and
 * be signed by the option's account; a held payment's, the `ReceiveWithAuthorization` to the chain's
 * escrow whose nonce is the hash of its terms (`PaymentEscrow.ts`), before their capture deadline: by EIP-712 recovery for ordinary accounts (on the
 * `SignatureRecovery` worker pool), or by the account's EIP-1271 `isValidSignature` for contract
 * wallets, run with at most the chain's `signatureCheck` gas (`GasPolicy.ts`).
 *
 * A proof that fails is the buyer's error (`ParamsValidation`); a chain that cannot be asked (RPC
 * down) or a token without a usable domain is the service's problem, a defect (a 500 response).
 *
 * @module
 */
import { type AuthorizationProof, ParamsValidation, traced } from "@paygate/domain"
import { Clock, Effect, Option, Result } from "effect"
import { type Address, encodeFunctionData, type Hex, hashTypedData, parseAbi } from "viem"
import type { Chains } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { transferWithAuthorizationTypedData } from "./Eip3009.ts"
import { escrowAuthorizationTypedData } from "./PaymentEscrow.ts"
import { sameAddress } from "./EvmAddress.ts"
import { resolveTarget } from "./ProofTarget.ts"
import { rpc } from "./RpcCall.ts"
import { isHexBytes, parseEcdsaSignature } from "./Signature.ts"
import type { SignatureRecovery } from "./SignatureRecovery.ts"

/** What {@link verifyAuthorization} works with. */
export interface VerifyContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
  readonly recovery: SignatureRecovery["Service"]
}

/** The message of a signature that is not the option account's. */
export const notTheAccountsSignature = "The signature was not made by the option's account."

const erc1271Abi = parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"])
const ERC1271_MAGIC_VALUE = "0x1626ba7e"
const MAX_UINT256 = 2n ** 256n - 1n

const invalid = (message: string) => Effect.fail(new ParamsValidation({ message }))

const isNonce = (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text)

/** Whether `account` is a contract that accepts `signature` over `hash` (EIP-1271). */
export const contractWalletAccepts = (runtime: ChainRuntime, account: Address, hash: Hex, signature: Hex) =>
  Effect.gen(function*() {
    const code = yield* rpc(runtime.chainId, "eth_getCode", () => runtime.client.getCode({ address: account }))
    if (code === undefined || code === "0x") return false
    // Bounded: a wallet may make its check as expensive as it likes.
    const answer = yield* rpc(runtime.chainId, "isValidSignature", () =>
      runtime.client.call({
        to: account,
        data: encodeFunctionData({ abi: erc1271Abi, functionName: "isValidSignature", args: [hash, signature] }),
        gas: BigInt(runtime.gas.signatureCheck)
      })).pipe(
        Effect.map(({ data }) => (data !== undefined && data.length === 66 ? data.slice(0, 10) : undefined)),
        // A wallet that reverts (or runs out of its gas) rejects the signature.
        Effect.catchIf((error) => error.failure !== "unavailable", () => Effect.succeed(undefined))
      )
    return answer === ERC1271_MAGIC_VALUE
  })

/** The checks of a signed transfer before its signature: value, expiry, nonce and signature shapes. */
export const checkShape = Effect.fnUntraced(function*(proof: AuthorizationProof) {
  if (proof.value <= 0n || proof.value > MAX_UINT256) return yield* invalid("The authorization's value is out of range.")
  const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  if (!Number.isSafeInteger(proof.validBefore) || proof.validBefore <= nowSeconds) {
    return yield* invalid("The authorization has expired (validBefore has passed).")
  }
  if (!isNonce(proof.nonce)) return yield* invalid("The authorization's nonce is not 32 bytes of hex.")
  if (!isHexBytes(proof.signature) || proof.signature.length <= 2) {
    return yield* invalid("The signature is not 0x-prefixed hex.")
  }
  return { nonce: proof.nonce, signature: proof.signature }
})

/**
 * Whether `payer` signed `hash`: by ECDSA recovery, else as a contract wallet (EIP-1271); refuses
 * with the reason otherwise (`notSigned` when the signature is someone else's). Fails with the
 * `ChainRpcError` of a wallet that could not be asked.
 */
export const checkSigner = Effect.fnUntraced(function*(
  context: Pick<VerifyContext, "recovery">,
  runtime: ChainRuntime,
  payer: Address,
  hash: Hex,
  signature: Hex,
  notSigned: string = notTheAccountsSignature
) {
  const ecdsa = parseEcdsaSignature(signature)
  if (Result.isSuccess(ecdsa)) {
    const signer = yield* context.recovery.recover(hash, ecdsa.success.serialized)
    if (Option.isSome(signer) && sameAddress(signer.value, payer)) return
  }
  // Not the account's key: maybe the account is a contract wallet (EIP-1271).
  if (yield* contractWalletAccepts(runtime, payer, hash, signature)) return
  if (Result.isFailure(ecdsa) && signature.length === 132) {
    return yield* invalid(`The signature ${ecdsa.failure}.`)
  }
  return yield* invalid(notSigned)
})

/** Checks a pull payment's proof; see the module documentation. */
export const verifyAuthorization = Effect.fnUntraced(function*(
  context: VerifyContext,
  proof: AuthorizationProof
): Effect.fn.Return<void, ParamsValidation> {
  const { runtime, asset, token, payer, escrow } = yield* resolveTarget(context.chains, context.runtimes, proof)
  if (!asset.eip3009) return yield* invalid("The option's asset does not support signed transfers (EIP-3009).")
  const { nonce, signature } = yield* checkShape(proof)

  const domain = yield* runtime.domains.get(token).pipe(Effect.orDie)
  if (escrow !== undefined && escrow.terms.captureBefore <= BigInt(Math.floor((yield* Clock.currentTimeMillis) / 1000))) {
    return yield* invalid("The payment's capture deadline has passed.")
  }
  const hash = escrow === undefined
    ? hashTypedData(transferWithAuthorizationTypedData(domain, {
      from: payer,
      to: runtime.settings.collectionAddress,
      value: proof.value,
      validAfter: 0n,
      validBefore: BigInt(proof.validBefore),
      nonce
    }))
    : hashTypedData(escrowAuthorizationTypedData(domain, escrow.address, escrow.terms, proof.value))

  return yield* checkSigner(context, runtime, payer, hash, signature).pipe(Effect.catchTag("ChainRpcError", Effect.die))
}, traced("ChainGateway.verifyAuthorization"))
