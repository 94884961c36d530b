import { Context, Effect, Layer, Metric } from "effect"
import type { Payout } from "../payout/Payout.ts"

/**
 * The limits an operator sets on what the service's payout keys move, per chain and token: per
 * settlement, per refund and per UTC day. `exceeded` answers why a payout may not be signed
 * without an owner's approval (its value, or the day's total with it, is over a limit), or
 * nothing when it is within them. The day's total counts the token's payouts on that chain
 * whose transfer is recorded and not yet final, and those completed since the UTC day began.
 */
export class PayoutLimits extends Context.Service<PayoutLimits, {
  /** A first look, before signing: nothing is held, so two payouts checked at once may both get through it. */
  readonly exceeded: (payout: Payout) => Effect.Effect<string | undefined>
  /**
   * Checks again and runs `record` (storing the payout's signed transfer) as one step that every
   * other `admit` of the token on its chain, in any process, waits for: of two payouts admitted
   * at once, the later counts the earlier. Answers the reason, recording nothing, when the payout
   * is over a limit; else what `record` answered. An approved payout is recorded whatever the limits.
   */
  readonly admit: (payout: Payout, record: Effect.Effect<boolean>) => Effect.Effect<boolean | string>
}>()("@paygate/domain/PayoutLimits") {
  /** No limits: every payout may be signed (unit tests of other rules). */
  static readonly layerNone = Layer.succeed(
    PayoutLimits,
    PayoutLimits.of({ exceeded: () => Effect.succeed(undefined), admit: (_payout, record) => record })
  )
}

const heldCounters = new Map<string, Metric.Counter<number>>()

/** `paygate_payouts_awaiting_approval_total`: payouts held for an owner's approval, by CAIP-19 asset and kind. */
export const payoutsHeld = (asset: string, kind: string): Metric.Counter<number> => {
  const key = `${asset} ${kind}`
  let counter = heldCounters.get(key)
  if (counter === undefined) {
    counter = Metric.counter("paygate_payouts_awaiting_approval_total", {
      description: "Payouts held for an owner's approval (over a configured payout limit), by asset and kind.",
      incremental: true,
      attributes: { asset, kind }
    })
    heldCounters.set(key, counter)
  }
  return counter
}
