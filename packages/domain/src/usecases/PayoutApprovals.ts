import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { InvalidState, PaymentNotFound } from "../errors/DomainErrors.ts"
import { PaymentId } from "../ids/Ids.ts"
import type { Payment } from "../payment/Payment.ts"
import { awaitsApproval, Payout, type PayoutKind } from "../payout/Payout.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"
import { type Access, canSee } from "./Access.ts"

const isPaymentId = Schema.is(PaymentId)

/**
 * Approvals of payouts held over a payout limit (`PayoutLimits`), by a team owner (API) or the
 * operator (admin CLI). Approving records who approved and when on each of the payment's held
 * payouts of `kind`; the worker then signs them whatever the limits (they still count in the
 * day's total). Compare-and-set on each payout's version: of two approvals at once one wins, the
 * other is `invalid_state`, as is approving a payout that does not wait for approval. Approval
 * never sends anything itself, so it can never pay twice.
 */
export class PayoutApprovals extends Context.Service<PayoutApprovals, {
  /** Approves the payment's held payouts of `kind` in the name of `approver` (an audit actor); answers the payment and what was approved. */
  readonly approve: (
    access: Access,
    paymentId: string,
    kind: PayoutKind,
    approver: string
  ) => Effect.Effect<{ readonly payment: Payment; readonly approved: ReadonlyArray<Payout> }, PaymentNotFound | InvalidState>
}>()("@paygate/domain/PayoutApprovals") {
  /** The use case over the repositories in context. */
  static readonly layer = Layer.effect(
    PayoutApprovals,
    Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const payouts = yield* PayoutRepository

      const approve = Effect.fn("PayoutApprovals.approve")(function*(access: Access, paymentId: string, kind: PayoutKind, approver: string) {
        const found = isPaymentId(paymentId) ? yield* payments.findById(paymentId) : Option.none()
        if (Option.isNone(found) || !canSee(access, found.value)) {
          return yield* new PaymentNotFound({ message: `No payment ${paymentId}.` })
        }
        const held = (yield* payouts.listByPayment(found.value.id)).filter((p) => p.kind === kind && awaitsApproval(p))
        if (held.length === 0) {
          return yield* new InvalidState({ message: `The ${kind} of payment ${paymentId} does not wait for approval.` })
        }
        const millis = yield* Clock.currentTimeMillis
        const approved = held.map((p) =>
          new Payout({ ...p, approvedBy: approver, approvedAt: millis, version: p.version + 1, updatedAt: Math.max(millis, p.updatedAt) })
        )
        // All or none: a payout that changed meanwhile (another approval first) leaves every one as it was.
        if (!(yield* payouts.reopen(approved, {}))) {
          return yield* new InvalidState({ message: `The ${kind} of payment ${paymentId} changed meanwhile (approved already?); read it again.` })
        }
        yield* Effect.logInfo(`payout: the ${kind} of ${paymentId} is approved by ${approver}: ${held[0]!.approvalRequired}`)
        return { payment: found.value, approved }
      })

      return PayoutApprovals.of({ approve })
    })
  )
}
