import type { Commitment } from "../payment/Payment.ts"
import type { Receipt } from "../receipt/Receipt.ts"

/** One transfer of a refund: `value` token base units back to `recipient` (CAIP-10). */
export interface RefundLeg {
  readonly recipient: string
  readonly value: bigint
}

// What a receipt counted towards its payment: all of a part, the asked-for rest of an overpayment.
const kept = (receipt: Receipt): bigint => (receipt.outcome === "overpaid" ? receipt.expectedValue ?? receipt.value : receipt.value)

/**
 * Where a payment's full refund goes: each sender of the parts that paid it (its `paid` and
 * `overpaid` receipts in the committed token) gets back what their parts counted towards the
 * payment, one leg per sender in the order they first paid. A payment paid by one transfer, or
 * whose receipts do not add up to the committed amount (not all of them recorded, say), goes back
 * whole to the committed account, as before parts existed. An overpayment's excess is not here: it
 * is its receipt's own refund.
 */
export const refundLegs = (commitment: Commitment, receipts: ReadonlyArray<Receipt>): ReadonlyArray<RefundLeg> => {
  const parts = receipts
    .filter((r) => (r.outcome === "paid" || r.outcome === "overpaid") && r.asset.toLowerCase() === commitment.asset.toLowerCase())
    .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
  const whole = [{ recipient: commitment.account, value: commitment.tokenAmount }]
  if (parts.length < 2 || parts.reduce((sum, r) => sum + kept(r), 0n) !== commitment.tokenAmount) return whole
  const bySender = new Map<string, RefundLeg>()
  for (const part of parts) {
    const sender = part.from.toLowerCase()
    const leg = bySender.get(sender)
    bySender.set(sender, { recipient: leg?.recipient ?? part.from, value: (leg?.value ?? 0n) + kept(part) })
  }
  return [...bySender.values()]
}
