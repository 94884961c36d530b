import { Schema } from "effect"
import { EventId, PartnerId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"
import { Subscription } from "./Subscription.ts"
import { SubscriptionCharge } from "./SubscriptionCharge.ts"

/** The webhook types of a subscription's changes. */
export const SubscriptionEventType = Schema.Literals([
  "subscription.activated",
  "subscription.charged",
  "subscription.charge_failed",
  "subscription.paused",
  "subscription.resumed",
  "subscription.cancelled",
  "subscription.ended"
])
/** A subscription event type. */
export type SubscriptionEventType = typeof SubscriptionEventType.Type

/** An outbox event of a subscription, committed with the change it reports: the subscription after it, and the charge it concerns. */
export class SubscriptionEvent extends Schema.Class<SubscriptionEvent>("paygate/SubscriptionEvent")({
  id: EventId,
  type: SubscriptionEventType,
  partnerId: PartnerId,
  mode: Mode,
  subscription: Subscription,
  charge: Schema.NullOr(SubscriptionCharge),
  /** Unix seconds. */
  createdAt: Schema.Int
}) {}
