import { Context, Effect, Layer, Option, Schema } from "effect"
import { PaymentNotFound } from "../errors/DomainErrors.ts"
import { PaymentId } from "../ids/Ids.ts"
import type { Payout } from "../payout/Payout.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"
import type { Refund } from "../refund/Refund.ts"
import { type Access, canSee } from "./Access.ts"
import { traced } from "./Traced.ts"

const isPaymentId = Schema.is(PaymentId)

/** A refund with the transfers that execute it: one per sender of the payment's parts, by leg. */
export interface RefundTransfers {
  readonly refund: Refund
  /** CAIP-19 token it sends back: the one the payment was paid in. */
  readonly asset: string
  readonly transfers: ReadonlyArray<Payout>
}

/**
 * A payment's refunds as its owner reads them, oldest first, each with its transfers. A payment
 * outside the caller's reach is reported exactly as a missing one.
 */
export class PaymentRefunds extends Context.Service<PaymentRefunds, {
  readonly list: (access: Access, paymentId: string) => Effect.Effect<ReadonlyArray<RefundTransfers>, PaymentNotFound>
}>()("@paygate/domain/PaymentRefunds") {
  /** The use case over the payment, refund and payout repositories in context. */
  static readonly layer = Layer.effect(
    PaymentRefunds,
    Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const refunds = yield* RefundRepository
      const payouts = yield* PayoutRepository

      const list = Effect.fnUntraced(function*(access: Access, paymentId: string) {
        const found = isPaymentId(paymentId) ? yield* payments.findById(paymentId) : Option.none()
        if (Option.isNone(found) || !canSee(access, found.value)) {
          return yield* new PaymentNotFound({ message: `No payment ${paymentId}.` })
        }
        // Only a paid payment (one with a commitment) can have been refunded.
        const commitment = found.value.commitment
        if (commitment === null) return []
        // Refunds first: a refund and its payouts are stored together, so each one read has its transfers.
        const all = yield* refunds.listByPayment(found.value.id)
        if (all.length === 0) return []
        const legs = (yield* payouts.listByPayment(found.value.id)).filter((p) => p.kind === "refund")
        return all.map((refund): RefundTransfers => ({
          refund,
          asset: commitment.asset,
          transfers: legs.filter((p) => p.refundId === refund.id).sort((a, b) => a.leg - b.leg)
        }))
      }, traced("PaymentRefunds.list"))

      return PaymentRefunds.of({ list })
    })
  )
}
