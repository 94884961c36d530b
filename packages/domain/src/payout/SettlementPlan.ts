import type { PriorRefunds } from "../refund/RefundPlan.ts"
import { nextLeg, type Payout, pendingPayout } from "./Payout.ts"

/** Where a payment's settlement goes, and of what it is paid from. */
export interface SettlementTarget {
  readonly paymentId: Payout["paymentId"]
  /** CAIP-19 token paid in. */
  readonly asset: string
  /** CAIP-10 settlement destination. */
  readonly recipient: string
  /** The payment's committed token amount, base units. */
  readonly tokenAmount: bigint
}

/**
 * The settlement of a succeeded payment after its refunds so far, created at `millis`: the token
 * amount less every refund's value (each is owed to its buyer until paid, failed or not), or `null`
 * when the refunds used it all up. Numbered after the refunds' payouts, so it never shares a leg
 * with a live one.
 */
export const planSettlement = (target: SettlementTarget, prior: PriorRefunds, millis: number): Payout | null => {
  const rest = prior.refunds.reduce((left, refund) => left - refund.value, target.tokenAmount)
  if (rest <= 0n) return null
  return pendingPayout({
    paymentId: target.paymentId,
    kind: "settlement",
    refundId: null,
    asset: target.asset,
    recipient: target.recipient,
    value: rest,
    leg: nextLeg(prior.payouts)
  }, millis)
}
