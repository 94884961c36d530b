import { Clock, Context, Effect, Layer, Option } from "effect"
import { type CryptoSettlement, isUsable } from "../merchant/CryptoSettlement.ts"
import type { Payment } from "../payment/Payment.ts"
import type { Payout } from "../payout/Payout.ts"
import { planSettlement, type SettlementTarget } from "../payout/SettlementPlan.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"

/**
 * Where a succeeded payment's funds go (API rules §11): when its merchant has a crypto settlement
 * destination for the asset paid in, a settlement payout to that destination of the token amount
 * less its refunds (no fee is taken; `planSettlement`); otherwise the funds stay at the collection
 * address and the payment has no settlement stage. Decided after the payment succeeded, with the
 * payment locked against refunds and its destination read under that lock; a refund that withdraws the settlement has what it left decided
 * anew, so a payment refunded in part still settles the rest.
 *
 * A destination not usable yet (added or changed within its delay) leaves the payment undecided:
 * neither forwarded nor kept, it is decided once the destination is usable (or removed).
 */
export class SettlementDecisions extends Context.Service<SettlementDecisions, {
  /**
   * Decides up to `limit` succeeded payments awaiting a decision; answers how many it decided (a
   * payment whose destination is not usable yet stays undecided and is not counted).
   */
  readonly decideNext: (limit: number) => Effect.Effect<number>
}>()("@paygate/domain/SettlementDecisions") {
  /** The use case over the payout repository in context (which reads the destination with the payment locked). */
  static readonly layer = Layer.effect(
    SettlementDecisions,
    Effect.gen(function*() {
      const payouts = yield* PayoutRepository

      // The settlement target; null: none (the funds stay); "waiting": its destination is not usable yet.
      const targetOf = (payment: Payment, destination: Option.Option<CryptoSettlement>, millis: number) => {
        const commitment = payment.commitment
        if (commitment === null || Option.isNone(destination)) return null
        if (!isUsable(destination.value, millis)) return "waiting" as const
        const target: SettlementTarget = {
          paymentId: payment.id,
          asset: commitment.asset,
          recipient: destination.value.destination,
          tokenAmount: commitment.tokenAmount
        }
        return target
      }

      // Decided with the payment locked, from its destination as read under that lock: a destination
      // changed or removed since the payment was listed is never used, nor one not usable yet.
      const decide = (payment: Payment) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          // What the plan made, if it ran (another worker may have decided the payment already).
          const decision: { target?: SettlementTarget | null | "waiting"; settlement?: Payout | null } = {}
          yield* payouts.decide(payment.id, (destination, prior) => {
            const target = targetOf(payment, destination, millis)
            decision.target = target
            if (target === "waiting") return target
            decision.settlement = target === null ? null : planSettlement(target, prior, millis)
            return decision.settlement
          })
          const { target, settlement } = decision
          if (target === "waiting") return false
          if (target === undefined || target === null || settlement === undefined) return true
          yield* settlement === null
            ? Effect.logInfo(`settlement: ${payment.id} is not settled, its refunds used it up`)
            : Effect.logInfo(`settlement: ${settlement.value} of ${payment.id} is forwarded to ${target.recipient}`)
          return true
        })

      const decideNext = Effect.fn("SettlementDecisions.decideNext")(function*(limit: number) {
        const due = yield* payouts.undecided(limit)
        // Counts what was decided: a payment still waiting for its destination does not ask for another round at once.
        const decided = yield* Effect.forEach(due, decide)
        return decided.filter(Boolean).length
      })

      return SettlementDecisions.of({ decideNext })
    })
  )
}
