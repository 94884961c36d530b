import { Schema } from "effect"
import { MerchantId, PartnerId, PlanId, SubscriptionId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"
import { SubscriptionTerms } from "./SubscriptionTerms.ts"

/**
 * Where a subscription stands: `subscribing` (signed; the contract does not hold it yet), `active`,
 * `past_due` (a period's charge failed and is retried), `paused` (by the merchant: no period is
 * charged until it resumes), and the final `cancelled` and `ended`.
 */
export const SubscriptionStatus = Schema.Literals(["subscribing", "active", "past_due", "paused", "cancelled", "ended"])
/** A subscription status. */
export type SubscriptionStatus = typeof SubscriptionStatus.Type

/**
 * Why a subscription ended: every period was charged (`completed`), a period's charge failed on its
 * last retry (`unpaid`), the contract never took the buyer's signature (`not_subscribed`), or the
 * payer moved to new terms from the next period (`replaced`).
 */
export const EndedReason = Schema.Literals(["completed", "unpaid", "not_subscribed", "replaced"])
/** Why a subscription ended. */
export type EndedReason = typeof EndedReason.Type

/** Who cancelled: the merchant (API, dashboard) or the payer (the link in a receipt, or on chain). */
export const CancelledBy = Schema.Literals(["merchant", "payer"])
/** Who cancelled a subscription. */
export type CancelledBy = typeof CancelledBy.Type

/** The buyer's signed Permit2 permit for the subscription's allowance holder, until the contract takes it. */
export class SignedPermit extends Schema.Class<SignedPermit>("paygate/SignedPermit")({
  /** 0x-prefixed signature as the wallet returned it. */
  signature: Schema.String,
  /** Unix seconds: the permit must reach the chain before it. */
  sigDeadline: Schema.Int
}) {}

/**
 * A buyer's subscription to a plan: its terms are fixed by the buyer's one signature. Changes are
 * compare-and-set on `version`; `nextCheckAt` is when the worker looks at it next.
 */
export class Subscription extends Schema.Class<Subscription>("paygate/Subscription")({
  id: SubscriptionId,
  planId: PlanId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  mode: Mode,
  terms: SubscriptionTerms,
  permit: SignedPermit,
  /** The transaction that gave the contract the subscription, once sent. */
  subscribeTx: Schema.NullOr(Schema.String),
  status: SubscriptionStatus,
  endedReason: Schema.NullOr(EndedReason),
  cancelledBy: Schema.NullOr(CancelledBy),
  /** The transaction that cancelled it in the contract too, once sent (a cancellation here stops charges at once). */
  cancelTx: Schema.NullOr(Schema.String),
  /** Whether the contract refuses every further charge: cancelled there, or nothing is held there. */
  closedOnChain: Schema.Boolean,
  /**
   * The subscription the payer signed to take over from the next period (a new price, say): this one
   * charges no period from `endPeriod` on, then ends `replaced`.
   */
  replacedBy: Schema.NullOr(SubscriptionId),
  /** The first period not charged, when the subscription ends before its term (`replacedBy`). */
  endPeriod: Schema.NullOr(Schema.Int),
  /** After a pause: periods before this one that were not charged are skipped (they began while paused). */
  skipUntil: Schema.NullOr(Schema.Int),
  /** Unix milliseconds. */
  nextCheckAt: Schema.Int,
  version: Schema.Int,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}

/** Whether a status never changes again. */
export const isFinalSubscription = (status: SubscriptionStatus): boolean => status === "cancelled" || status === "ended"
