import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { PaymentEventType } from "../payment/PaymentEventType.ts"
import { isSettlementStage, type PaymentRecord, toPaymentRecord } from "../payment/PaymentRecord.ts"
import { ExplorerLinks, type ExplorerLinksShape } from "../ports/ExplorerLinks.ts"
import { type SettlementDestinationEnvelope, settlementDestinationEnvelope } from "./SettlementDestinationEnvelope.ts"
import { type SubscriptionEnvelope, subscriptionEnvelope } from "./SubscriptionEnvelope.ts"
import { isPaymentEvent, isSubscriptionEvent, type WebhookEvent } from "./WebhookEvent.ts"

/**
 * The body of a webhook (API rules §6): the event id and type, the API version of the endpoint,
 * the event's time (Unix seconds) and the payment as it was right after the change, with its
 * `stateVersion` (receivers drop stale events with it), plus the event-specific `stage`.
 * Fields are only ever added.
 */
export interface WebhookEnvelope {
  readonly id: string
  readonly type: PaymentEventType
  readonly apiVersion: string
  readonly createdAt: number
  readonly data: {
    readonly payment: PaymentRecord
    readonly stage: { readonly [key: string]: unknown }
  }
}

/** The body of any webhook: a payment's event, a subscription's, or a destination's change (told apart by `type`). */
export type EventEnvelope = WebhookEnvelope | SubscriptionEnvelope | SettlementDestinationEnvelope

/**
 * The envelope of a payment's `event` for an endpoint pinned to `apiVersion`. A `payment.settled`
 * event's stage is the settlement, so its payment snapshot shows it too.
 */
const paymentEnvelope = (
  event: OutboxEvent,
  apiVersion: string,
  explorer: ExplorerLinksShape = ExplorerLinks.defaultValue()
): WebhookEnvelope => {
  const settlement = event.type === "payment.settled" && isSettlementStage(event.stage) ? event.stage : null
  return {
    id: event.id,
    type: event.type,
    apiVersion,
    createdAt: event.createdAt,
    data: { payment: toPaymentRecord(event.payment, { settlement }, explorer), stage: event.stage }
  }
}

/** The envelope of `event` for an endpoint pinned to `apiVersion` (a payment's event has a payment's envelope). */
export function envelopeOf(event: OutboxEvent, apiVersion: string, explorer?: ExplorerLinksShape): WebhookEnvelope
export function envelopeOf(event: WebhookEvent, apiVersion: string, explorer?: ExplorerLinksShape): EventEnvelope
export function envelopeOf(event: WebhookEvent, apiVersion: string, explorer?: ExplorerLinksShape): EventEnvelope {
  return isPaymentEvent(event)
    ? paymentEnvelope(event, apiVersion, explorer)
    : isSubscriptionEvent(event)
    ? subscriptionEnvelope(event, apiVersion)
    : settlementDestinationEnvelope(event, apiVersion)
}

/** The exact bytes sent (and signed) for `event`: its envelope as JSON. */
export const envelopeBody = (event: WebhookEvent, apiVersion: string, explorer?: ExplorerLinksShape): string =>
  JSON.stringify(envelopeOf(event, apiVersion, explorer))
