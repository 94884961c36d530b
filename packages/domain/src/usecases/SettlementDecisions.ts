import { Clock, Context, Effect, Layer, Option, Result } from "effect"
import { formatAssetId, validateAssetId } from "../caip/AssetId.ts"
import type { Payment } from "../payment/Payment.ts"
import { pendingPayout } from "../payout/Payout.ts"
import { PayoutRepository } from "../ports/PayoutRepository.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"

// The canonical spelling (checksummed) of an asset id, as settlement destinations are stored.
const canonicalAsset = (asset: string): string | undefined =>
  Result.getOrUndefined(Result.map(validateAssetId(asset), formatAssetId))

/**
 * Where a succeeded payment's funds go (API rules §11): when its merchant has a crypto settlement
 * destination for the asset paid in, a settlement payout of the whole token amount (no fee is
 * taken) to that destination; otherwise the funds stay at the collection address and the payment
 * has no settlement stage. Decided once per payment, after it succeeded; a payment refunded before
 * its decision is not settled (the store checks it atomically).
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

      const settlementOf = Effect.fnUntraced(function*(payment: Payment) {
        const commitment = payment.commitment
        const asset = commitment === null ? undefined : canonicalAsset(commitment.asset)
        if (commitment === null || asset === undefined) return null
        const destination = yield* destinations.findByAsset(payment.merchantId, asset)
        if (Option.isNone(destination)) return null
        return pendingPayout({
          paymentId: payment.id,
          kind: "settlement",
          refundId: null,
          asset: commitment.asset,
          recipient: destination.value.destination,
          value: commitment.tokenAmount
        }, yield* Clock.currentTimeMillis)
      })

      const decide = (payment: Payment) =>
        Effect.gen(function*() {
          const settlement = yield* settlementOf(payment)
          const stored = yield* payouts.decide(payment.id, settlement)
          if (settlement !== null) {
            yield* stored
              ? Effect.logInfo(`settlement: ${payment.id} is forwarded to ${settlement.recipient}`)
              : Effect.logInfo(`settlement: ${payment.id} is not settled, it was refunded first`)
          }
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
