import { Clock, Context, Effect, Layer, Option, Result } from "effect"
import { formatAssetId, validateAssetId } from "../caip/AssetId.ts"
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
 */
export class SettlementDecisions extends Context.Service<SettlementDecisions, {
  /** Decides up to `limit` succeeded payments awaiting a decision; answers how many it decided. */
  readonly decideNext: (limit: number) => Effect.Effect<number>
}>()("@paygate/domain/SettlementDecisions") {
  /** The use case over the payout and settlement repositories in context. */
  static readonly layer = Layer.effect(
    SettlementDecisions,
    Effect.gen(function*() {
      const payouts = yield* PayoutRepository
      const destinations = yield* SettlementRepository

      const targetOf = Effect.fnUntraced(function*(payment: Payment) {
        const commitment = payment.commitment
        const asset = commitment === null ? undefined : canonicalAsset(commitment.asset)
        if (commitment === null || asset === undefined) return null
        const destination = yield* destinations.findByAsset(payment.merchantId, asset)
        if (Option.isNone(destination)) return null
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
          const target = yield* targetOf(payment)
          const millis = yield* Clock.currentTimeMillis
          // What the plan made, if it ran (another worker may have decided the payment already).
          const decision: { settlement?: Payout | null } = {}
          yield* payouts.decide(payment.id, (prior) => {
            decision.settlement = target === null ? null : planSettlement(target, prior, millis)
            return decision.settlement
          })
          const settlement = decision.settlement
          if (target === null || settlement === undefined) return
          yield* settlement === null
            ? Effect.logInfo(`settlement: ${payment.id} is not settled, its refunds used it up`)
            : Effect.logInfo(`settlement: ${settlement.value} of ${payment.id} is forwarded to ${target.recipient}`)
        })

      const decideNext = Effect.fn("SettlementDecisions.decideNext")(function*(limit: number) {
        const due = yield* payouts.undecided(limit)
        yield* Effect.forEach(due, decide, { discard: true })
        return due.length
      })

      return SettlementDecisions.of({ decideNext })
    })
  )
}
