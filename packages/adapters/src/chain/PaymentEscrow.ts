/**
 * The payment escrow (`packages/adapters/contracts/PaymentEscrow.sol`) off chain: the terms of a
 * held payment, the hash the buyer's authorization carries as its nonce, the EIP-3009
 * `ReceiveWithAuthorization` the buyer signs, and the calls the operator (and the payer) make.
 *
 * The hash binds the terms to one escrow on one chain, so the buyer's one signature fixes the amount,
 * the receiver, the deadlines and the operator.
 *
 * @module
 */
import { Result } from "effect"
import { type Address, encodeFunctionData, getAddress, type Hex, isAddress, zeroAddress } from "viem"
import { contractTermsHash, termsType } from "./ContractTermsHash.ts"
import { PaymentEscrow } from "./contracts.generated.ts"
import { type TokenDomain, transferWithAuthorizationTypes } from "./Eip3009.ts"

/** What the buyer agrees to (the contract's `Terms`); times are Unix seconds. */
export interface EscrowTerms {
  readonly operator: Address
  readonly payer: Address
  readonly receiver: Address
  readonly token: Address
  readonly authorizeBefore: bigint
  readonly captureBefore: bigint
  readonly refundBefore: bigint
  readonly salt: Hex
}

const escrowTerms = termsType(PaymentEscrow.abi)

/** The contract's `termsHash`: what the buyer's authorization must carry as its nonce. */
export const escrowTermsHash = (chainId: number, escrow: Address, terms: EscrowTerms): Hex =>
  contractTermsHash(escrowTerms, chainId, escrow, terms)

/** What a held payment's contract terms are made of: its domain terms beside the token, payer, deadline and salt. */
export interface EscrowTermsParts {
  /** The chain's executor: the only account that may authorize, capture, void and refund. */
  readonly operator: Address
  readonly payer: Address
  readonly token: Address
  /** Unix seconds: the authorization's `validBefore`. */
  readonly authorizeBefore: number
  /** 0x + 32 bytes: the quote's nonce. */
  readonly salt: string
  /** The domain's `EscrowTerms`. */
  readonly terms: { readonly receiver: string; readonly captureBefore: number; readonly refundBefore: number }
}

const isTime = (value: number) => Number.isSafeInteger(value) && value >= 0

/**
 * The contract's `Terms` of a held payment; the failure is a phrase for messages. Terms the escrow
 * would refuse outright (`BadTerms`: no receiver, a capture window outlasting the refund window) fail here.
 */
export const escrowTermsOf = (parts: EscrowTermsParts): Result.Result<EscrowTerms, string> => {
  const { receiver, captureBefore, refundBefore } = parts.terms
  if (!isAddress(receiver, { strict: false }) || receiver.toLowerCase() === zeroAddress) return Result.fail(`the receiver ${receiver} is not an address`)
  if (!isTime(parts.authorizeBefore) || !isTime(captureBefore) || !isTime(refundBefore)) return Result.fail("a deadline is not a Unix time in seconds")
  if (captureBefore > refundBefore) return Result.fail("the capture deadline is after the refund deadline")
  if (!/^0x[0-9a-fA-F]{64}$/.test(parts.salt)) return Result.fail("the salt is not 32 bytes of hex")
  return Result.succeed({
    operator: parts.operator,
    payer: parts.payer,
    receiver: getAddress(receiver),
    token: parts.token,
    authorizeBefore: BigInt(parts.authorizeBefore),
    captureBefore: BigInt(captureBefore),
    refundBefore: BigInt(refundBefore),
    salt: parts.salt as Hex
  })
}

/** The EIP-712 types of `ReceiveWithAuthorization`: EIP-3009's payee-only variant, the same fields. */
const receiveWithAuthorizationTypes = { ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization } as const

/** The typed data the payer signs to hold `amount` in `escrow` under `terms`. */
export const escrowAuthorizationTypedData = (domain: TokenDomain, escrow: Address, terms: EscrowTerms, amount: bigint) => ({
  domain: { ...domain },
  types: receiveWithAuthorizationTypes,
  primaryType: "ReceiveWithAuthorization" as const,
  message: {
    from: terms.payer,
    to: escrow,
    value: amount,
    validAfter: 0n,
    validBefore: terms.authorizeBefore,
    nonce: escrowTermsHash(domain.chainId, escrow, terms)
  }
})

const abi = PaymentEscrow.abi

/** The escrow's calls, encoded: `authorize`, `capture`, `refund` by the operator; `void` by it too; `reclaim` by the payer. */
export const escrowCalls = {
  authorize: (terms: EscrowTerms, amount: bigint, signature: Hex) =>
    encodeFunctionData({ abi, functionName: "authorize", args: [terms, amount, signature] }),
  /** Valid only while the escrow counts `capturedBefore` as captured (else `Stale`): sent twice, the second reverts. */
  capture: (terms: EscrowTerms, amount: bigint, capturedBefore: bigint) =>
    encodeFunctionData({ abi, functionName: "capture", args: [terms, amount, capturedBefore] }),
  void: (terms: EscrowTerms) => encodeFunctionData({ abi, functionName: "void", args: [terms] }),
  reclaim: (terms: EscrowTerms) => encodeFunctionData({ abi, functionName: "reclaim", args: [terms] }),
  refund: (terms: EscrowTerms, amount: bigint) => encodeFunctionData({ abi, functionName: "refund", args: [terms, amount] })
}
