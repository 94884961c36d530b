import type { Commitment } from "../payment/Payment.ts"
import { nextLeg, type Payout } from "../payout/Payout.ts"
import type { Receipt } from "../receipt/Receipt.ts"
import type { Refund } from "./Refund.ts"
import { type RefundLeg, refundLegs } from "./RefundLegs.ts"

/** A payment's refunds so far, with the payouts that execute them. */
export interface PriorRefunds {
  readonly refunds: ReadonlyArray<Refund>
  readonly payouts: ReadonlyArray<Payout>
}

/** What a refund request comes to, planned against the refunds before it. */
export type RefundPlan =
  | {
    readonly _tag: "Planned"
    /** Payment currency, minor units. */
    readonly amount: bigint
    /** Token base units, all legs together. */
    readonly value: bigint
    readonly legs: ReadonlyArray<RefundLeg>
    /** The first leg's number: a payment's refund payouts are numbered on across its refunds. */
    readonly firstLeg: number
  }
  | { readonly _tag: "Exceeds"; readonly remaining: bigint }
  | { readonly _tag: "TooSmall"; readonly minimum: bigint }

const sum = (values: ReadonlyArray<bigint>) => values.reduce((a, b) => a + b, 0n)

/**
 * Plans a refund of `requested` minor units of the payment's currency (`null`: all that is left).
 *
 * The token value is the requested share of the committed token amount rounded down, so refunds
 * never send more than their share; the refund that uses up the paid amount sends exactly the
 * tokens still left, so a payment refunded in parts gives back all it took, never more. Asking for
 * more than is left is `Exceeds`; an amount too small to be worth one token unit is `TooSmall`.
 *
 * Each sender of the payment's parts gets back from what is still owed to them (their parts
 * less what earlier refunds sent them), in the order they first paid.
 */
export const planRefund = (
  payment: { readonly value: bigint; readonly commitment: Commitment },
  parts: ReadonlyArray<Receipt>,
  prior: PriorRefunds,
  requested: bigint | null
): RefundPlan => {
  const { commitment } = payment
  const remaining = payment.value - sum(prior.refunds.map((r) => r.amount))
  const remainingValue = commitment.tokenAmount - sum(prior.refunds.map((r) => r.value))
  const amount = requested ?? remaining
  if (remaining <= 0n || remainingValue <= 0n || amount > remaining) return { _tag: "Exceeds", remaining: remaining < 0n ? 0n : remaining }
  const share = (amount * commitment.tokenAmount) / payment.value
  const value = amount === remaining ? remainingValue : share < remainingValue ? share : remainingValue
  if (value === 0n) {
    // The least amount whose share is one token unit: ceil(value / tokenAmount).
    return { _tag: "TooSmall", minimum: (payment.value + commitment.tokenAmount - 1n) / commitment.tokenAmount }
  }
  const refunded = prior.payouts.filter((p) => p.kind === "refund")
  const sent = (recipient: string) =>
    sum(refunded.filter((p) => p.recipient.toLowerCase() === recipient.toLowerCase()).map((p) => p.value))
  const legs: Array<RefundLeg> = []
  let rest = value
  for (const owed of refundLegs(commitment, parts)) {
    const open = owed.value - sent(owed.recipient)
    const take = open < rest ? open : rest
    if (take > 0n) legs.push({ recipient: owed.recipient, value: take })
    rest -= take > 0n ? take : 0n
  }
  // Parts recorded differently from earlier refunds' (only possible while receipts were still arriving): the rest to the committed account.
  if (rest > 0n) legs.push({ recipient: commitment.account, value: rest })
  return { _tag: "Planned", amount, value, legs, firstLeg: nextLeg(refunded) }
}
