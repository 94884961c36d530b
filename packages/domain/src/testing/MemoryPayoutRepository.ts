import { Clock, Effect, Layer, Option } from "effect"
import { isUsable } from "../merchant/CryptoSettlement.ts"
import type { Payment } from "../payment/Payment.ts"
import type { Payout } from "../payout/Payout.ts"
import { type PayoutEffects, PayoutRepository } from "../ports/PayoutRepository.ts"
import { type MemoryRefunds, payoutKey, payoutsOf, refundsOf } from "./MemoryPayoutStore.ts"
import type { MemorySettlements } from "./MemorySettlementRepository.ts"
import type { MemoryStore } from "./MemoryStore.ts"

/**
 * In-memory {@link PayoutRepository} over the payment store (payment changes and events) and the
 * refund store (refund records, and the payouts they share). Each method runs synchronously, so
 * it is atomic with respect to other fibers, like a database transaction. `decide` reads the
 * destination from the settlement store; `undecided` leaves out payments whose destination is not
 * usable yet, as the SQL store does (unless `listsWaiting`).
 */
export const layerMemoryPayouts = (stores: {
  readonly payments: MemoryStore
  readonly refunds: MemoryRefunds
  readonly settlements: MemorySettlements
  /** Lists payments whose destination is not usable yet too (as a listing read before a change would). */
  readonly listsWaiting?: boolean
}): Layer.Layer<PayoutRepository> => {
  const { payments, refunds, settlements } = stores
  // `payment`'s destination: asset ids compare without case, as the SQL store's do.
  const destinationOf = (payment: Payment) => {
    const asset = payment.commitment?.asset.toLowerCase()
    return [...settlements.settlements.values()].find((s) => s.merchantId === payment.merchantId && s.asset.toLowerCase() === asset)
  }
  // Whether `payment`'s destination is not usable at `millis` (never, for a store listing them all).
  const waiting = (payment: Payment, millis: number) => {
    const destination = destinationOf(payment)
    return stores.listsWaiting !== true && destination !== undefined && !isUsable(destination, millis)
  }
  const store = refunds.payouts
  // Each payout of `next` at its stored version + 1, no other live payout of the payment on its leg, and the payment's compare-and-set.
  const updateAll = (next: ReadonlyArray<Payout>, effects: PayoutEffects) => {
    const fits = next.every((p) => store.payouts.get(payoutKey(p.paymentId, p.kind, p.leg))?.version === p.version - 1)
    const held = next.some((p) =>
      p.status !== "failed" &&
      payoutsOf(store, p.paymentId).some((other) => other.kind !== p.kind && other.leg === p.leg && other.status !== "failed")
    )
    const payment = effects.payment
    if (!fits || held || (payment !== undefined && payments.payments.get(payment.id)?.stateVersion !== payment.stateVersion - 1)) return false
    for (const p of next) store.payouts.set(payoutKey(p.paymentId, p.kind, p.leg), p)
    if (payment !== undefined) payments.payments.set(payment.id, payment)
    payments.events.push(...(effects.events ?? []))
    if (effects.refund !== undefined) refunds.refunds.set(effects.refund.id, effects.refund)
    return true
  }
  return Layer.succeed(PayoutRepository, PayoutRepository.of({
    find: (key) => Effect.sync(() => Option.fromNullishOr(store.payouts.get(payoutKey(key.paymentId, key.kind, key.leg)))),
    listByPayment: (paymentId) => Effect.sync(() => payoutsOf(store, paymentId)),
    undecided: (limit) =>
      Effect.map(Clock.currentTimeMillis, (millis) =>
        [...payments.payments.values()]
          .filter((p) => p.status === "succeeded" && !store.decided.has(p.id) && !waiting(p, millis))
          .sort((a, b) => a.updatedAt - b.updatedAt)
          .slice(0, limit)
      ),
    decide: (paymentId, plan) =>
      Effect.sync(() => {
        const payment = payments.payments.get(paymentId)
        if (store.decided.has(paymentId) || payment === undefined) return false
        const settlement = plan(
          Option.fromNullishOr(destinationOf(payment)),
          { refunds: refundsOf(refunds, paymentId), payouts: payoutsOf(store, paymentId).filter((p) => p.kind === "refund") }
        )
        if (settlement === "waiting") return false
        store.decided.add(paymentId)
        if (settlement === null) return false
        store.payouts.set(payoutKey(paymentId, settlement.kind, settlement.leg), settlement)
        return true
      }),
    update: (next, effects = {}) => Effect.sync(() => updateAll([next], effects)),
    reopen: (next, effects) => Effect.sync(() => updateAll(next, effects))
  }))
}
