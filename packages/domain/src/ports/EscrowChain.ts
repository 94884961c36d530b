import { Context, type Effect } from "effect"
import type { EscrowTerms } from "../hold/Hold.ts"
import type { ChainOutcome } from "./ChainGateway.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { SubmissionRefused } from "./SubmissionRefused.ts"

/** One payment's funds in the escrow: what the buyer's authorization named, beside its terms. */
export interface EscrowedPayment {
  /** CAIP-19 token. */
  readonly asset: string
  /** CAIP-10 account that authorized (the payer). */
  readonly account: string
  /** Unix seconds: the authorization's own deadline (its EIP-3009 `validBefore`). */
  readonly authorizeBefore: number
  /** 0x + 32 bytes: the quote's nonce, the terms' salt. */
  readonly salt: string
  readonly terms: EscrowTerms
}

/** What the escrow holds of a payment, read at the chain's newest block with its required confirmations. */
export interface EscrowBalance {
  /** Token base units still held. */
  readonly held: bigint
  /** Token base units captured so far. */
  readonly captured: bigint
}

/**
 * The payment escrow (`PaymentEscrow.sol`) on the token's chain, sending as the chain's executor
 * (the terms' operator). Sends only what its simulation shows would pass: what would revert is
 * `SubmissionRefused`, and nothing is sent.
 */
export class EscrowChain extends Context.Service<EscrowChain, {
  /**
   * Sends the capture of `amount` to the terms' receiver, valid only while the escrow counts
   * `capturedBefore` as captured: sent twice, the second reverts, so a capture is never made twice.
   */
  readonly capture: (payment: EscrowedPayment, amount: bigint, capturedBefore: bigint) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /** Sends the void of everything still held (back to the payer). */
  readonly void: (payment: EscrowedPayment) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /** Where a transaction of the token's chain stands, with the chain's required confirmations. */
  readonly observe: (asset: string, txHash: string) => Effect.Effect<ChainOutcome>
  /** What the escrow holds of the payment, at the newest block with the chain's required confirmations. */
  readonly balance: (payment: EscrowedPayment) => Effect.Effect<EscrowBalance, ChainUnavailable>
  /** Unix seconds of the chain's newest block: the clock the escrow's deadlines are checked against. */
  readonly chainTime: (asset: string) => Effect.Effect<number, ChainUnavailable>
}>()("@paygate/domain/EscrowChain") {}
