import type { CollectData } from "../datacollection/CollectData.ts"
import type { Amount } from "../money/Amount.ts"
import type { Action } from "./Action.ts"

/**
 * One way to pay a payment from one account (spec "PaymentOption"): the amount, the actions the
 * wallet carries out, the buyer data to collect first (if any), and when its rate ends (null for
 * options that involve no rate).
 */
export interface PaymentOption {
  readonly id: string
  readonly account: string
  readonly amount: Amount
  /** Estimated seconds to completion. */
  readonly etaS: number
  readonly actions: ReadonlyArray<Action>
  readonly collectData: CollectData | null
  readonly expiresAt: number | null
}
