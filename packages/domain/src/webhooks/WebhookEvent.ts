import { Schema } from "effect"
import type { MerchantId } from "../ids/Ids.ts"
import { SettlementDestinationEvent, settlementDestinationChanged } from "../merchant/SettlementDestinationEvent.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Mode } from "../payment/Payment.ts"
import { PaymentEventType } from "../payment/PaymentEventType.ts"
import { SubscriptionEvent, SubscriptionEventType } from "../subscription/SubscriptionEvent.ts"

/** Every webhook event type an endpoint may subscribe to: the payments', the subscriptions' and the partner-level ones. */
export const WebhookEventType = Schema.Literals([
  ...PaymentEventType.literals,
  ...SubscriptionEventType.literals,
  settlementDestinationChanged
])
/** A webhook event type. */
export type WebhookEventType = typeof WebhookEventType.Type

/**
 * What the outbox holds and the webhooks deliver: a payment's event ({@link OutboxEvent}), a
 * subscription's, or a settlement destination's change, told apart by `type`.
 */
export const WebhookEvent = Schema.Union([OutboxEvent, SubscriptionEvent, SettlementDestinationEvent])
/** An outbox event of any kind. */
export type WebhookEvent = OutboxEvent | SubscriptionEvent | SettlementDestinationEvent

const isSubscriptionType = Schema.is(SubscriptionEventType)

/** Whether `event` is a subscription's event. */
export const isSubscriptionEvent = (event: WebhookEvent): event is SubscriptionEvent => isSubscriptionType(event.type)

/** Whether `event` is a payment's event. */
export const isPaymentEvent = (event: WebhookEvent): event is OutboxEvent =>
  event.type !== settlementDestinationChanged && !isSubscriptionEvent(event)

/** The mode and merchant an event belongs to: they choose the endpoints that receive it. */
export const eventOwner = (event: WebhookEvent): { readonly mode: Mode; readonly merchantId: MerchantId } =>
  isPaymentEvent(event)
    ? { mode: event.payment.mode, merchantId: event.payment.merchantId }
    : isSubscriptionEvent(event)
    ? { mode: event.mode, merchantId: event.subscription.merchantId }
    : { mode: event.mode, merchantId: event.settlement.merchantId }
