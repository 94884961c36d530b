/**
 * The checks every payment proof shares: its token is configured, its account is a valid CAIP-10
 * account on the token's chain, and it pays the chain's collection address, or, for a held payment
 * (an authorization with `escrow` terms), the chain's payment escrow under terms it would take.
 * Yields what the specific checks need next.
 *
 * @module
 */
import { Caip, type EscrowTerms as DomainEscrowTerms, ParamsValidation, type PaymentProof } from "@paygate/domain"
import { Effect, Result } from "effect"
import type { Address, Hex } from "viem"
import { type AssetSettings, type Chains, lookupAsset } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { sameAddress } from "./EvmAddress.ts"
import { type EscrowTerms, escrowTermsHash, escrowTermsOf } from "./PaymentEscrow.ts"

/** A proof resolved against the configuration. */
export interface ProofTarget {
  readonly runtime: ChainRuntime
  readonly asset: AssetSettings
  /** The token contract. */
  readonly token: Address
  /** The paying account's address (EIP-55). */
  readonly payer: Address
  /** A held payment's: the chain's escrow, the contract's terms and their hash (the authorization's signed nonce). */
  readonly escrow?: HeldTarget | undefined
}

/** A held payment in the chain's escrow. */
export interface HeldTarget {
  readonly address: Address
  readonly terms: EscrowTerms
  /** The escrow's `termsHash`. */
  readonly hash: Hex
}

const invalid = (message: string) => Effect.fail(new ParamsValidation({ message }))

/** Resolves `proof`'s asset, chain and payer; `ParamsValidation` when they do not fit together. */
export const resolveTarget = (
  chains: Chains,
  runtimes: ReadonlyMap<string, ChainRuntime>,
  proof: PaymentProof
): Effect.Effect<ProofTarget, ParamsValidation> => {
  const found = lookupAsset(chains, proof.asset)
  const runtime = found === undefined ? undefined : runtimes.get(found.chain.chainId)
  if (found === undefined || runtime === undefined) return invalid("The option's asset is not accepted.")
  const account = Caip.validateAccountId(proof.account)
  if (Result.isFailure(account)) return invalid(`The option's account is not a CAIP-10 account id: ${account.failure}.`)
  if (account.success.chainId !== runtime.chainId) return invalid("The option's account is not on the asset's chain.")
  // validateAccountId returned the EIP-55 form of an eip155 address (checked just above).
  const payer = account.success.address as Address
  if (proof._tag !== "Authorization" || proof.escrow === undefined) {
    if (!sameAddress(proof.to, runtime.settings.collectionAddress)) return invalid("The payment's recipient is not the collection address.")
    return Effect.succeed({ runtime, asset: found.asset, token: found.token, payer })
  }
  if (runtime.settings.paymentEscrow === undefined) {
    return invalid(`Held payments are not available on ${runtime.chainId}: no payment escrow is configured.`)
  }
  if (!sameAddress(proof.to, runtime.settings.paymentEscrow)) return invalid("The payment's recipient is not the chain's payment escrow.")
  const escrow = heldTarget(runtime, payer, found.token, proof.validBefore, proof.nonce, proof.escrow)
  if (Result.isFailure(escrow)) return invalid(`The payment's escrow terms are not valid: ${escrow.failure}.`)
  return Effect.succeed({ runtime, asset: found.asset, token: found.token, payer, escrow: escrow.success })
}

/**
 * A held payment in `runtime`'s escrow: the contract's terms (the chain's executor is their operator) and
 * their hash, the nonce the payer signs; the failure is a phrase for messages. The gateway checks and
 * submits the authorization with it, the escrow port captures and voids with it.
 */
export const heldTarget = (
  runtime: ChainRuntime,
  payer: Address,
  token: Address,
  authorizeBefore: number,
  salt: string,
  held: DomainEscrowTerms
): Result.Result<HeldTarget, string> => {
  const address = runtime.settings.paymentEscrow as Address | undefined
  if (address === undefined) return Result.fail(`held payments are not available on ${runtime.chainId}: no paymentEscrow is configured`)
  return Result.map(
    escrowTermsOf({ operator: runtime.executor.address, payer, token, authorizeBefore, salt, terms: held }),
    (terms) => ({ address, terms, hash: escrowTermsHash(runtime.chainNumber, address, terms) })
  )
}
