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
import { type Address, encodeFunctionData, type Hex } from "viem"
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
