import { Effect, Layer, Option } from "effect"
import { InvalidState } from "../errors/DomainErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Refund } from "../refund/Refund.ts"
import { type PlannedRefund, RefundRepository } from "../ports/RefundRepository.ts"
import type { PriorRefunds } from "../refund/RefundPlan.ts"
import { latestRefundOf, makeMemoryRefunds, type MemoryRefunds, payoutKey, payoutsOf, refundsOf } from "./MemoryPayoutStore.ts"

/**
 * In-memory {@link RefundRepository} for unit tests: each refund planned and written in one
 * synchronous step, so concurrent inserts are planned one after the other. The payment's
 * settlement is withdrawn while its transfer is unsigned (what the refund leaves is then decided
 * anew), and refuses the refund once signed.
 */
export const layerMemoryRefunds = (store: MemoryRefunds = makeMemoryRefunds()): Layer.Layer<RefundRepository> =>
  Layer.succeed(RefundRepository, RefundRepository.of({
    insert: <E>(paymentId: PaymentId, plan: (prior: PriorRefunds) => Effect.Effect<PlannedRefund, E>) =>
      Effect.suspend((): Effect.Effect<Refund, E | InvalidState> => {
        const settlement = payoutsOf(store.payouts, paymentId).find((p) => p.kind === "settlement" && p.status !== "failed")
        if (settlement !== undefined && (settlement.status === "completed" || settlement.transfer !== null)) {
          return Effect.fail(new InvalidState({ message: `Payment ${paymentId} was settled to the merchant; it cannot be refunded.` }))
        }
        const refundPayouts = payoutsOf(store.payouts, paymentId).filter((p) => p.kind === "refund")
        const planned = Effect.runSyncExit(plan({ refunds: refundsOf(store, paymentId), payouts: refundPayouts }))
        if (planned._tag === "Failure") return Effect.failCause(planned.cause)
        const { payouts, refund } = planned.value
        // Withdrawn (even failed), so what this refund leaves is decided anew.
        const withdrawn = payoutsOf(store.payouts, paymentId).filter((p) => p.kind === "settlement")
        for (const p of withdrawn) store.payouts.payouts.delete(payoutKey(paymentId, p.kind, p.leg))
        if (withdrawn.length > 0) store.payouts.decided.delete(paymentId)
        store.refunds.set(refund.id, refund)
        for (const payout of payouts) store.payouts.payouts.set(payoutKey(payout.paymentId, payout.kind, payout.leg), payout)
        return Effect.succeed(refund)
      }),
    listByPayment: (paymentId) => Effect.sync(() => refundsOf(store, paymentId)),
    findByPayment: (paymentId) => Effect.sync(() => Option.fromNullishOr(latestRefundOf(store, paymentId)))
  }))
