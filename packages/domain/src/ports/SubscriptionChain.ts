import { Context, type Effect, Schema } from "effect"
import type { ParamsValidation } from "../errors/DomainErrors.ts"
import type { SubscriptionTerms } from "../subscription/SubscriptionTerms.ts"
import type { ChainOutcome } from "./ChainGateway.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { SubmissionRefused } from "./SubmissionRefused.ts"

/**
 * Why the contract would refuse a period's charge now, as its simulation shows:
 * `insufficient_funds` (the payer is short: retried), `revoked` (the payer took back the allowance in
 * Permit2, or the token's approval of Permit2), `closed` (cancelled in the contract, or not held there),
 * `charged` (the period already holds the amount: an earlier transaction of ours paid it), `early`
 * (the chain's latest block is older than the period's start: tried again shortly), `other` (anything
 * else: retried later).
 */
export const ChargeRefusal = Schema.Literals(["insufficient_funds", "revoked", "closed", "charged", "early", "other"])
/** Why a charge is refused. */
export type ChargeRefusal = typeof ChargeRefusal.Type

/** The contract refuses a charge; nothing was sent. */
export class ChargeRefused extends Schema.TaggedError<ChargeRefused>()("ChargeRefused", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  reason: ChargeRefusal,
  message: Schema.String
}) {}

/** What the contract holds of a subscription. */
export interface SubscriptionOnChain {
  readonly subscribed: boolean
  readonly cancelled: boolean
}

/**
 * The subscription contract on the asset's chain (`SubscriptionVault.sol`), sending as the chain's
 * executor (the terms' operator). Sends only what its simulation shows would pass.
 */
export class SubscriptionChain extends Context.Service<SubscriptionChain, {
  /** The CAIP-2 chains with a subscription contract: terms on any other are refused. */
  readonly chains: ReadonlyArray<string>
  /** The EIP-712 typed data (JSON) the payer signs: one Permit2 permit for the subscription's allowance holder. */
  readonly permitTypedData: (terms: SubscriptionTerms, sigDeadline: number) => Effect.Effect<string, ChainUnavailable | ParamsValidation>
  /** Checks the payer signed that permit (a contract wallet's signature is asked of the wallet). */
  readonly verifyPermit: (terms: SubscriptionTerms, sigDeadline: number, signature: string) => Effect.Effect<void, ChainUnavailable | ParamsValidation>
  /** Sends `subscribe`; answers the transaction hash. */
  readonly subscribe: (terms: SubscriptionTerms, sigDeadline: number, signature: string) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /** Sends the charge of `amount` for period `periodIndex`; answers the transaction hash. */
  readonly charge: (terms: SubscriptionTerms, periodIndex: number, amount: bigint) => Effect.Effect<string, ChainUnavailable | ChargeRefused>
  /** Sends `cancel`; answers the transaction hash. */
  readonly cancel: (terms: SubscriptionTerms) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /** Where a transaction of the asset's chain stands, with the chain's required confirmations. */
  readonly observe: (terms: SubscriptionTerms, txHash: string) => Effect.Effect<ChainOutcome>
  /** What the contract holds of the subscription. */
  readonly onChain: (terms: SubscriptionTerms) => Effect.Effect<SubscriptionOnChain, ChainUnavailable>
  /** What the contract counts as charged for period `periodIndex`. */
  readonly charged: (terms: SubscriptionTerms, periodIndex: number) => Effect.Effect<bigint, ChainUnavailable>
}>()("@paygate/domain/SubscriptionChain") {}
