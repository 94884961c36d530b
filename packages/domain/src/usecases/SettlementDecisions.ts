import { Clock, Context, Effect, Layer, Option, Result } from "effect"
import { formatAssetId, validateAssetId } from "../caip/AssetId.ts"
import { isUsable } from "../merchant/CryptoSettlement.ts"
import type { Payment } from "../payment/Payment.ts"
import type { Payout } from "../payout/Payout.ts"
import { planSettlement, type SettlementTarget } from "../payout/SettlementPlan.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"

// The canonical spelling (checksummed) of an asset id, as settlement destinations are stored.
const canonicalAsset = (asset: string): string | undefined =>
  Result.getOrUndefined(Result.map(validateAssetId(asset), formatAssetId))

/**
 * Where a succeeded payment's funds go (API rules §11): when its merchant has a crypto settlement
 * destination for the asset paid in, a settlement payout to that destination of the token amount
 * less its refunds (no fee is taken; `planSettlement`); otherwise the funds stay at the collection
 * address and the payment has no settlement stage. Decided after the payment succeeded, with the
 * payment locked against refunds; a refund that withdraws the settlement has what it left decided
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
  /** The use case over the payout and settlement repositories in context. */
  static readonly layer = Layer.effect(
    SettlementDecisions,
    Effect.gen(function*() {
      const payouts = yield* PayoutRepository
      const destinations = yield* SettlementRepository

      // The settlement target; null: none (the funds stay); "waiting": its destination is not usable yet.
      const targetOf = Effect.fnUntraced(function*(payment: Payment, millis: number) {
        const commitment = payment.commitment
        const asset = commitment === null ? undefined : canonicalAsset(commitment.asset)
        if (commitment === null || asset === undefined) return null
        const destination = yield* destinations.findByAsset(payment.merchantId, asset)
        if (Option.isNone(destination)) return null
        if (!isUsable(destination.value, millis)) return "waiting" as const
        const target: SettlementTarget = {
          paymentId: payment.id,
          asset: commitment.asset,
          recipient: destination.value.destination,
          tokenAmount: commitment.tokenAmount
        }
        return target
      })

      const decide = (payment: Payment) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const target = yield* targetOf(payment, millis)
          if (target === "waiting") return false
          // What the plan made, if it ran (another worker may have decided the payment already).
          const decision: { settlement?: Payout | null } = {}
          yield* payouts.decide(payment.id, (prior) => {
            decision.settlement = target === null ? null : planSettlement(target, prior, millis)
            return decision.settlement
          })
          const settlement = decision.settlement
          if (target === null || settlement === undefined) return true
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
