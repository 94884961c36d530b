import type { SubscriptionEvent, SubscriptionEventType } from "../subscription/SubscriptionEvent.ts"
import {
  type SubscriptionChargeRecord,
  type SubscriptionRecord,
  toChargeRecord,
  toSubscriptionRecord
} from "../subscription/SubscriptionRecord.ts"

/**
 * The body of a `subscription.*` webhook: the webhook envelope whose `data` is the subscription right
 * after the change, as the partner API shows it, and the charge the event concerns (`null` for an
 * activation, a cancellation, or an end that is not a charge's).
 */
export interface SubscriptionEnvelope {
  readonly id: string
  readonly type: SubscriptionEventType
  readonly apiVersion: string
  readonly createdAt: number
  readonly data: {
    readonly subscription: SubscriptionRecord
    readonly charge: SubscriptionChargeRecord | null
  }
}

/** The envelope of a subscription's event for an endpoint pinned to `apiVersion`. */
export const subscriptionEnvelope = (event: SubscriptionEvent, apiVersion: string): SubscriptionEnvelope => ({
  id: event.id,
  type: event.type,
  apiVersion,
  createdAt: event.createdAt,
  data: {
    subscription: toSubscriptionRecord(event.subscription),
    charge: event.charge === null ? null : toChargeRecord(event.subscription, event.charge)
  }
})
