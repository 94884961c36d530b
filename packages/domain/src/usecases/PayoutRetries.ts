import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { InvalidState, PaymentNotFound } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { PaymentId } from "../ids/Ids.ts"
import type { Payment } from "../payment/Payment.ts"
import { Payout, type PayoutKind } from "../payout/Payout.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"
import { type Access, canSee } from "./Access.ts"
import { makePayoutWrites } from "./PayoutWrites.ts"

const isPaymentId = Schema.is(PaymentId)

// Bound on compare-and-set retries; each means another writer changed the payout or payment meanwhile.
const maxRaces = 5

/**
 * Retries of failed settlements and refunds, by the partner (API) or the operator (admin CLI). A
 * failed payout never moved the payment's funds, so they are still owed to the same party: the
 * refund's payer, or the settlement's destination. A retry makes it pending again with fresh
 * attempts; the worker then pays it as any pending payout.
 *
 * Never paid twice: the payout keeps its last recorded transfer, and the worker reads that one
 * from the chain before it signs anything new, so a transfer that went through after all completes
 * the payout instead of being followed by another. Of two retries at once, one wins the payout's
 * compare-and-set; the other is `invalid_state`, as is a retry of a payout that has not failed,
 * and of a settlement whose amount the payment's refunds took meanwhile. A refund and the
 * settlement of what refunds left are retried independently: neither holds the other's funds.
 */
export class PayoutRetries extends Context.Service<PayoutRetries, {
  /** Makes the payment's failed payout of `kind` pending again; answers the payment at its new version. */
  readonly retry: (access: Access, paymentId: string, kind: PayoutKind) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
}>()("@paygate/domain/PayoutRetries") {
  /** The use case over the repositories in context. */
  static readonly layer = Layer.effect(
    PayoutRetries,
    Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const payouts = yield* PayoutRepository
      const refunds = yield* RefundRepository
      const ids = yield* IdGenerator
      const writes = makePayoutWrites({ payments, refunds, payouts, ids })

      // Why the payment's payouts of `kind` cannot be retried now, if they cannot.
      const refusal = Effect.fnUntraced(function*(payment: Payment, kind: PayoutKind, all: ReadonlyArray<Payout>) {
        const own = all.filter((p) => p.kind === kind)
        if (own.length === 0) return new InvalidState({ message: `Payment ${payment.id} has no ${kind} to retry.` })
        const failed = own.filter((p) => p.status === "failed")
        if (failed.length === 0) {
          const status = own.some((p) => p.status === "pending") ? "pending" : "completed"
          return new InvalidState({ message: `The ${kind} of payment ${payment.id} is ${status}; only a failed one can be retried.` })
        }
        // A refund's value is its buyer's until paid, and a settlement is planned after the refunds
        // (a later one withdraws it), so a retry fits beside them; one that would not is refused.
        const refunded = (yield* refunds.listByPayment(payment.id)).reduce((total, r) => total + r.value, 0n)
        const settling = failed.reduce((total, p) => total + p.value, 0n)
        if (kind === "settlement" && refunded + settling > (payment.commitment?.tokenAmount ?? 0n)) {
          return new InvalidState({ message: `Payment ${payment.id} was refunded instead of settled; its settlement cannot be retried.` })
        }
        return undefined
      })

      const retry = Effect.fn("PayoutRetries.retry")(function*(access: Access, paymentId: string, kind: PayoutKind) {
        const found = isPaymentId(paymentId) ? yield* payments.findById(paymentId) : Option.none()
        if (Option.isNone(found) || !canSee(access, found.value)) {
          return yield* new PaymentNotFound({ message: `No payment ${paymentId}.` })
        }
        for (let race = 1; ; race++) {
          const all = yield* payouts.listByPayment(found.value.id)
          const refused = yield* refusal(found.value, kind, all)
          if (refused !== undefined) return yield* refused
          const failed = all.filter((p) => p.kind === kind && p.status === "failed")
          const millis = yield* Clock.currentTimeMillis
          const reopened = failed.map((p) =>
            new Payout({ ...p, status: "pending", attempts: 0, completedAt: null, version: p.version + 1, updatedAt: Math.max(millis, p.updatedAt) })
          )
          const effects = yield* writes.effectsOf(failed, reopened)
          if (yield* payouts.reopen(reopened, effects)) {
            yield* Effect.logInfo(`payout: the ${kind} of ${paymentId} is retried`)
            return effects.payment ?? found.value
          }
          if (race >= maxRaces) {
            return yield* new InvalidState({ message: `The ${kind} of payment ${paymentId} kept changing; try again.` })
          }
        }
      })

      return PayoutRetries.of({ retry })
    })
  )
}
