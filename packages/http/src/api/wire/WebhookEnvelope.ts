import { PaymentEventType, settlementDestinationChanged, SettlementDestinationChange, SubscriptionEventType } from "@paygate/domain"
import { Schema } from "effect"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { PaymentRecord } from "./PaymentRecord.ts"
import { SubscriptionChargeRecord, SubscriptionRecord } from "./SubscriptionRecord.ts"

/**
 * The body of a webhook (API rules §6): the event id and type, the API version of the endpoint,
 * the event's time (Unix seconds) and the payment as it was right after the change, with its
 * `stateVersion` (receivers drop stale events with it), plus the event-specific `stage`.
 * Fields are only ever added. The domain builds it (`envelopeOf`); this is how the API shows it.
 */
export const WebhookEnvelope = Schema.Struct({
  id: Schema.String,
  type: PaymentEventType,
  apiVersion: Schema.String,
  createdAt: NonNegativeInt,
  data: Schema.Struct({
    payment: PaymentRecord,
    stage: Schema.Record(Schema.String, Schema.Unknown)
  })
}).annotate({ identifier: "WebhookEnvelope" })

/**
 * The body of a `settlement_destination.changed` webhook: its `data` is the destination as the
 * partner API shows it (times in Unix seconds), with its merchant and CAIP-2 `network`, what
 * changed, and the account it pointed to before a `changed`.
 */
export const SettlementDestinationEnvelope = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal(settlementDestinationChanged),
  apiVersion: Schema.String,
  createdAt: NonNegativeInt,
  data: Schema.Struct({
    settlementDestination: Schema.Struct({
      id: Schema.String,
      merchantId: Schema.String,
      /** CAIP-19 asset forwarded to `destination`. */
      asset: Schema.String,
      /** CAIP-2 chain of `asset` and `destination`. */
      network: Schema.String,
      /** CAIP-10 account. */
      destination: Schema.String,
      createdAt: NonNegativeInt,
      updatedAt: NonNegativeInt,
      /** From when payments are forwarded to `destination` (Unix seconds). */
      usableFrom: NonNegativeInt
    }),
    change: SettlementDestinationChange,
    previousDestination: Schema.NullOr(Schema.String)
  })
}).annotate({ identifier: "SettlementDestinationWebhookEnvelope" })

/**
 * The body of a `subscription.*` webhook: the subscription right after the change, and the charge
 * the event concerns (`null` for an activation, a cancellation, or an end that is not a charge's).
 */
export const SubscriptionEnvelope = Schema.Struct({
  id: Schema.String,
  type: SubscriptionEventType,
  apiVersion: Schema.String,
  createdAt: NonNegativeInt,
  data: Schema.Struct({
    subscription: SubscriptionRecord,
    charge: Schema.NullOr(SubscriptionChargeRecord)
  })
}).annotate({ identifier: "SubscriptionWebhookEnvelope" })

/** The body of any webhook: a payment's event, a subscription's, or a destination's change (told apart by `type`). */
export const EventEnvelope = Schema.Union([WebhookEnvelope, SubscriptionEnvelope, SettlementDestinationEnvelope])
  .annotate({ identifier: "EventEnvelope" })
