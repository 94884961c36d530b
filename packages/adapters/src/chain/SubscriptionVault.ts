/**
 * The subscription vault (`packages/adapters/contracts/SubscriptionVault.sol`) off chain: the terms of a
 * subscription, their hash, the address of the clone that holds the payer's Permit2 allowance, the
 * `PermitSingle` the payer signs for it, and the calls the operator (and the payer) make.
 *
 * The clone's address is the vault's CREATE2 address for the terms' hash, so the payer's one signature
 * (whose spender is that address) fixes the amount per period, the period, the term, the receiver and
 * the operator.
 *
 * @module
 */
import { type Address, concat, encodeFunctionData, getContractAddress, type Hex, maxUint160 } from "viem"
import { contractTermsHash, termsType } from "./ContractTermsHash.ts"
import { SubscriptionVault } from "./contracts.generated.ts"
import { type PermitSingle, permitSingleTypedData } from "./Permit2.ts"

/** What the buyer agrees to (the contract's `Terms`); times are Unix seconds, the period in seconds. */
export interface SubscriptionTerms {
  readonly operator: Address
  readonly payer: Address
  readonly receiver: Address
  readonly token: Address
  /** Token base units charged at most per period. */
  readonly amountPerPeriod: bigint
  readonly period: number
  /** When period 0 begins; a trial is a later start. */
  readonly start: number
  /** How many periods; 0 for a subscription until cancelled. */
  readonly periods: number
  readonly salt: Hex
}

const vaultTerms = termsType(SubscriptionVault.abi)

/** The contract's `termsHash`: the CREATE2 salt of the subscription's clone. */
export const subscriptionTermsHash = (chainId: number, vault: Address, terms: SubscriptionTerms): Hex =>
  contractTermsHash(vaultTerms, chainId, vault, terms)

/** The EIP-1167 creation code of a clone of `implementation`. */
const cloneCode = (implementation: Address): Hex =>
  concat(["0x3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, "0x5af43d82803e903d91602b57fd5bf3"])

/**
 * The clone that holds the allowance of the subscription with this terms hash (the permit's spender), deployed
 * or not yet: the vault's CREATE2 address for a clone of its implementation, its first deployment.
 */
export const subscriptionSpender = (vault: Address, termsHash: Hex): Address =>
  getContractAddress({
    opcode: "CREATE2",
    from: vault,
    salt: termsHash,
    bytecode: cloneCode(getContractAddress({ opcode: "CREATE", from: vault, nonce: 1n }))
  })

/** The largest allowance for the term (unlimited when open-ended), expiring at the term's end. */
const subscriptionPermit = (chainId: number, vault: Address, terms: SubscriptionTerms, nonce: number, sigDeadline: bigint): PermitSingle => ({
  details: {
    token: terms.token,
    amount: terms.periods === 0 ? maxUint160 : terms.amountPerPeriod * BigInt(terms.periods),
    expiration: terms.periods === 0 ? 2 ** 48 - 1 : terms.start + terms.period * terms.periods,
    nonce
  },
  spender: subscriptionSpender(vault, subscriptionTermsHash(chainId, vault, terms)),
  sigDeadline
})

/**
 * The typed data the payer signs to subscribe under `terms`; `nonce` is the payer's current Permit2 nonce for
 * the token and the clone (0 for new terms). Its `message` is the permit `subscribe` submits.
 */
export const subscriptionPermitTypedData = (chainId: number, vault: Address, terms: SubscriptionTerms, nonce: number, sigDeadline: bigint) =>
  permitSingleTypedData(chainId, subscriptionPermit(chainId, vault, terms, nonce, sigDeadline))

const abi = SubscriptionVault.abi

/** The vault's calls, encoded: `subscribe` and `charge` by the operator; `cancel` by it or the payer. */
export const subscriptionCalls = {
  subscribe: (terms: SubscriptionTerms, permit: PermitSingle, signature: Hex) =>
    encodeFunctionData({ abi, functionName: "subscribe", args: [terms, permit, signature] }),
  charge: (terms: SubscriptionTerms, periodIndex: bigint, amount: bigint) =>
    encodeFunctionData({ abi, functionName: "charge", args: [terms, periodIndex, amount] }),
  cancel: (terms: SubscriptionTerms) => encodeFunctionData({ abi, functionName: "cancel", args: [terms] })
}
