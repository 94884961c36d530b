import { Schema } from "effect"
import type { MerchantId } from "../ids/Ids.ts"
import { SettlementDestinationEvent, settlementDestinationChanged } from "../merchant/SettlementDestinationEvent.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Mode } from "../payment/Payment.ts"
import { PaymentEventType } from "../payment/PaymentEventType.ts"

/** Every webhook event type an endpoint may subscribe to: the payments' and the partner-level ones. */
export const WebhookEventType = Schema.Literals([...PaymentEventType.literals, settlementDestinationChanged])
/** A webhook event type. */
export type WebhookEventType = typeof WebhookEventType.Type

/**
 * What the outbox holds and the webhooks deliver: a payment's event ({@link OutboxEvent}) or a
 * partner-level one, told apart by `type`.
 */
export const WebhookEvent = Schema.Union([OutboxEvent, SettlementDestinationEvent])
/** An outbox event of any kind. */
export type WebhookEvent = OutboxEvent | SettlementDestinationEvent

/** Whether `event` is a payment's event. */
export const isPaymentEvent = (event: WebhookEvent): event is OutboxEvent => event.type !== settlementDestinationChanged

/** The mode and merchant an event belongs to: they choose the endpoints that receive it. */
export const eventOwner = (event: WebhookEvent): { readonly mode: Mode; readonly merchantId: MerchantId } =>
  isPaymentEvent(event)
    ? { mode: event.payment.mode, merchantId: event.payment.merchantId }
    : { mode: event.mode, merchantId: event.settlement.merchantId }
