import { Effect, Layer, Option } from "effect"
import { AlreadyRefunded, InvalidState } from "../errors/ApiErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Refund } from "../refund/Refund.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"
import { makeMemoryPayouts, type MemoryPayouts, payoutKey, payoutsOf } from "./MemoryPayoutRepository.ts"

/** The state behind the in-memory refund repository, exposed so tests can inspect it. */
export interface MemoryRefunds {
  /** By payment id. */
  readonly refunds: Map<PaymentId, Refund>
  /** The payouts refunds are executed by (shared with the payout repository). */
  readonly payouts: MemoryPayouts
}

/** A fresh, empty refund store. */
export const makeMemoryRefunds = (payouts: MemoryPayouts = makeMemoryPayouts()): MemoryRefunds => ({ refunds: new Map(), payouts })

/**
 * In-memory {@link RefundRepository} for unit tests: one refund per payment, checked and written
 * in one synchronous step, so of two concurrent inserts exactly one wins. The payment's settlement
 * is withdrawn while its transfer is unsigned, and refuses the refund once signed.
 */
export const layerMemoryRefunds = (store: MemoryRefunds = makeMemoryRefunds()): Layer.Layer<RefundRepository> =>
  Layer.succeed(RefundRepository, RefundRepository.of({
    insert: (refund, payouts) =>
      Effect.suspend((): Effect.Effect<void, AlreadyRefunded | InvalidState> => {
        const existing = store.refunds.get(refund.paymentId)
        if (existing !== undefined) {
          return Effect.fail(new AlreadyRefunded({ message: `Payment ${refund.paymentId} already has refund ${existing.id}.` }))
        }
        const settlement = payoutsOf(store.payouts, refund.paymentId).find((p) => p.kind === "settlement" && p.status !== "failed")
        if (settlement !== undefined && (settlement.status === "completed" || settlement.transfer !== null)) {
          return Effect.fail(new InvalidState({ message: `Payment ${refund.paymentId} was settled to the merchant; it cannot be refunded.` }))
        }
        if (settlement !== undefined) store.payouts.payouts.delete(payoutKey(refund.paymentId, "settlement"))
        store.refunds.set(refund.paymentId, refund)
        for (const payout of payouts) store.payouts.payouts.set(payoutKey(payout.paymentId, payout.kind, payout.leg), payout)
        return Effect.void
      }),
    findByPayment: (paymentId) => Effect.sync(() => Option.fromNullishOr(store.refunds.get(paymentId)))
  }))
