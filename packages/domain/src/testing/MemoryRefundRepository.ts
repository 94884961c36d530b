import { Effect, Layer, Option } from "effect"
import { AlreadyRefunded } from "../errors/ApiErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Refund } from "../refund/Refund.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"

/** The state behind the in-memory refund repository (by payment id), exposed so tests can inspect it. */
export interface MemoryRefunds {
  readonly refunds: Map<PaymentId, Refund>
}

/** A fresh, empty refund store. */
export const makeMemoryRefunds = (): MemoryRefunds => ({ refunds: new Map() })

/**
 * In-memory {@link RefundRepository} for unit tests: one refund per payment, checked and written
 * in one synchronous step, so of two concurrent inserts exactly one wins.
 */
export const layerMemoryRefunds = (store: MemoryRefunds = makeMemoryRefunds()): Layer.Layer<RefundRepository> =>
  Layer.succeed(RefundRepository, RefundRepository.of({
    insert: (refund) =>
      Effect.suspend(() => {
        const existing = store.refunds.get(refund.paymentId)
        if (existing !== undefined) {
          return Effect.fail(new AlreadyRefunded({ message: `Payment ${refund.paymentId} already has refund ${existing.id}.` }))
        }
        store.refunds.set(refund.paymentId, refund)
        return Effect.void
      }),
    findByPayment: (paymentId) => Effect.sync(() => Option.fromNullishOr(store.refunds.get(paymentId)))
  }))
