import type { GasPaid } from "../gas/GasPaid.ts"
import { Effect, Option } from "effect"
import type { IdGenerator } from "../ids/IdGenerator.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import { Payment } from "../payment/Payment.ts"
import { type Payout, type PayoutStatus, settlementStage } from "../payout/Payout.ts"
import type { PaymentRepository } from "../ports/PaymentRepository.ts"
import type { PayoutEffects, PayoutRepository } from "../ports/PayoutRepository.ts"
import type { RefundRepository } from "../ports/RefundRepository.ts"
import { Refund, refundStage } from "../refund/Refund.ts"

const samePayout = (a: Payout, b: Payout) => a.paymentId === b.paymentId && a.kind === b.kind && a.leg === b.leg

/** A refund's status from its payouts': pending while one is, else failed if one failed, else completed. */
const refundStatus = (legs: ReadonlyArray<Payout>): PayoutStatus =>
  legs.some((p) => p.status === "pending") ? "pending" : legs.some((p) => p.status === "failed") ? "failed" : "completed"

/**
 * What a payout change implies beyond the payout itself, for the worker's steps and for retries
 * alike: a refund payout keeps its refund record in step, and a changed status moves the payment
 * to its next version (with `payment.settled` once a settlement completes).
 */
export const makePayoutWrites = (ports: {
  readonly payments: PaymentRepository["Service"]
  readonly refunds: RefundRepository["Service"]
  readonly payouts: PayoutRepository["Service"]
  readonly ids: IdGenerator["Service"]
}) => {
  const { ids, payments, payouts, refunds } = ports

  // The refund record as its payouts now stand (`changed` among them); a settlement has none.
  const refundEffect = Effect.fnUntraced(function*(changed: ReadonlyArray<Payout>) {
    const first = changed[0]!
    if (first.kind !== "refund") return undefined
    const refund = (yield* refunds.listByPayment(first.paymentId)).find((r) => r.id === first.refundId)
    if (refund === undefined) return yield* Effect.die(new Error(`refund payout of ${first.paymentId} has no refund`))
    const stored = (yield* payouts.listByPayment(first.paymentId)).filter((p) => p.refundId === refund.id)
    const legs = stored.length === 0 ? changed : stored.map((p) => changed.find((c) => samePayout(c, p)) ?? p)
    const firstLeg = legs.reduce((a, b) => (b.leg < a.leg ? b : a))
    return new Refund({
      ...refund,
      status: refundStatus(legs),
      // A refund of several senders shows its first transfer's.
      txHash: firstLeg.transfer?.txHash ?? null,
      updatedAt: Math.max(first.updatedAt, refund.updatedAt)
    })
  })

  // A changed status changes the payment's record (`found`, as read before the refund's payouts):
  // its next version, and `payment.settled` or the refund's outcome.
  const paymentEffects = Effect.fnUntraced(function*(found: Payment, next: Payout, refund: Refund | undefined) {
    const payment = new Payment({
      ...found,
      stateVersion: found.stateVersion + 1,
      updatedAt: Math.max(next.updatedAt, found.updatedAt)
    })
    const settled = next.kind === "settlement" && next.status === "completed"
    const refunded = refund !== undefined && refund.status !== "pending"
    if (!settled && !refunded) return { payment }
    const event = new OutboxEvent({
      id: yield* ids.make("event"),
      type: settled ? "payment.settled" : refund!.status === "completed" ? "payment.refunded" : "payment.refund_failed",
      partnerId: payment.partnerId,
      paymentId: payment.id,
      payment,
      stage: settled ? settlementStage(next) : refundStage(refund!),
      createdAt: Math.floor(payment.updatedAt / 1000)
    })
    return { payment, events: [event] }
  })

  const paymentOf = (next: Payout) =>
    Effect.flatMap(payments.findById(next.paymentId), Option.match({
      onNone: () => Effect.die(new Error(`payout of unknown payment ${next.paymentId}`)),
      onSome: Effect.succeed
    }))

  /**
   * What storing `next` (payouts of one payment and kind, each the version after its `previous`)
   * implies. The payment is read before the refund's other payouts: of two payouts of a refund
   * ending at once, the later writer either read the payment after the other committed (and so
   * sees its payout final) or loses its compare-and-set on the payment and is written again.
   */
  const effectsOf = Effect.fnUntraced(function*(previous: ReadonlyArray<Payout>, next: ReadonlyArray<Payout>) {
    const moved = next.some((p, i) => p.status !== previous[i]!.status)
    const found = moved ? yield* paymentOf(next[0]!) : undefined
    const refund = yield* refundEffect(next)
    const effects: PayoutEffects = { refund, ...(found === undefined ? {} : yield* paymentEffects(found, next[0]!, refund)) }
    return effects
  })

  /** Stores `next` (the version after `previous`) with what it implies and the `gas` it observed; `false` on a lost race. */
  const write = (previous: Payout, next: Payout, gas?: GasPaid) =>
    Effect.flatMap(effectsOf([previous], [next]), (effects) => payouts.update(next, { ...effects, gas }))

  return { effectsOf, write }
}
