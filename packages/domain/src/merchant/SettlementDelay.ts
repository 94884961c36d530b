import { Context } from "effect"
import type { Mode } from "../payment/Payment.ts"

/** How long a new or changed settlement destination waits before payments are forwarded to it, per mode. */
export interface SettlementDelayShape {
  /** Milliseconds, for live merchants (real networks). */
  readonly live: number
  /** Milliseconds, for sandbox merchants (test networks, no real money). */
  readonly sandbox: number
}

/** A day: long enough for the owner to see the webhook or the dashboard notice and undo a change they did not make. */
export const defaultLiveSettlementDelayMs = 86_400_000

/**
 * The delay before a settlement destination that was added or changed is used. A stolen key or
 * session could point a merchant's settlement at the thief; the delay leaves the owner time to
 * notice and undo it. Default: a day for live merchants, none for sandbox ones.
 */
export const SettlementDelay = Context.Reference<SettlementDelayShape>("@paygate/domain/SettlementDelay", {
  defaultValue: () => ({ live: defaultLiveSettlementDelayMs, sandbox: 0 })
})

/** The delay for a merchant of `mode`. */
export const settlementDelayOf = (delay: SettlementDelayShape, mode: Mode): number => delay[mode]
