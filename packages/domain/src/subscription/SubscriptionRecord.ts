import { type AssetId, assetChainId } from "../caip/index.ts"
import type { EndedReason, CancelledBy, Subscription, SubscriptionStatus } from "./Subscription.ts"
import type { ChargeStatus, SubscriptionCharge } from "./SubscriptionCharge.ts"
import { periodStart } from "./SubscriptionTerms.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

/** A subscription as the partner API and its webhooks show it: amounts as decimal strings of base units, times in Unix seconds. */
export interface SubscriptionRecord {
  readonly id: string
  readonly planId: string
  readonly merchantId: string
  readonly status: SubscriptionStatus
  readonly endedReason: EndedReason | null
  readonly cancelledBy: CancelledBy | null
  /** CAIP-10 account charged each period. */
  readonly payer: string
  /** CAIP-10 account each charge goes to: the merchant's settlement destination when the buyer signed. */
  readonly receiver: string
  /** CAIP-19 token charged. */
  readonly asset: string
  /** CAIP-2 chain of `asset`. */
  readonly network: string
  /** The most each period takes, token base units. */
  readonly amountPerPeriod: string
  readonly periodSeconds: number
  /** When the first period begins. */
  readonly start: number
  /** Periods in the term; `null` until cancelled. */
  readonly periods: number | null
  readonly subscribeTx: string | null
  readonly cancelTx: string | null
  /** The subscription that took over from the next period, when the payer moved to new terms. */
  readonly replacedBy: string | null
  readonly createdAt: number
  readonly updatedAt: number
}

/** One period's charge as the partner API and its webhooks show it. */
export interface SubscriptionChargeRecord {
  readonly periodIndex: number
  /** When the period begins. */
  readonly periodStart: number
  /** Token base units. */
  readonly amount: string
  readonly status: ChargeStatus
  readonly failedAttempts: number
  /** When it is tried next, while pending. */
  readonly nextAttemptAt: number | null
  readonly txHash: string | null
  /** Why the last attempt failed, in one line. */
  readonly lastError: string | null
}

/** The record of `subscription`. */
export const toSubscriptionRecord = (subscription: Subscription): SubscriptionRecord => {
  const terms = subscription.terms
  return {
    id: subscription.id,
    planId: subscription.planId,
    merchantId: subscription.merchantId,
    status: subscription.status,
    endedReason: subscription.endedReason,
    cancelledBy: subscription.cancelledBy,
    payer: terms.payer,
    receiver: terms.receiver,
    asset: terms.asset,
    // Stored assets are canonical CAIP-19 ids.
    network: assetChainId(terms.asset as AssetId),
    amountPerPeriod: terms.amountPerPeriod.toString(),
    periodSeconds: terms.periodSeconds,
    start: terms.start,
    periods: terms.periods,
    subscribeTx: subscription.subscribeTx,
    cancelTx: subscription.cancelTx,
    replacedBy: subscription.replacedBy,
    createdAt: seconds(subscription.createdAt),
    updatedAt: seconds(subscription.updatedAt)
  }
}

/** The record of `charge`, a charge of `subscription`. */
export const toChargeRecord = (subscription: Subscription, charge: SubscriptionCharge): SubscriptionChargeRecord => ({
  periodIndex: charge.periodIndex,
  periodStart: periodStart(subscription.terms, charge.periodIndex),
  amount: charge.amount.toString(),
  status: charge.status,
  failedAttempts: charge.failedAttempts,
  nextAttemptAt: charge.status === "pending" ? seconds(charge.nextAttemptAt) : null,
  txHash: charge.txHash,
  lastError: charge.lastError
})
