import { Schema } from "effect"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import { SettlementDestinationEnvelope, settlementDestinationEnvelope } from "./SettlementDestinationEnvelope.ts"
import { isPaymentEvent, type WebhookEvent } from "./WebhookEvent.ts"
import { ExplorerLinks, type ExplorerLinksShape } from "../ports/ExplorerLinks.ts"
import { PaymentEventType } from "../payment/PaymentEventType.ts"
import { NonNegativeInt } from "../wire/NonNegativeInt.ts"
import { PaymentRecord, SettlementStage, toPaymentRecord } from "../wire/PaymentRecord.ts"

/**
 * The body of a webhook (API rules §6): the event id and type, the API version of the endpoint,
 * the event's time (Unix seconds) and the payment as it was right after the change, with its
 * `stateVersion` (receivers drop stale events with it), plus the event-specific `stage`.
 * Fields are only ever added.
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
/** A webhook envelope. */
export type WebhookEnvelope = typeof WebhookEnvelope.Type

/** The body of any webhook: a payment's event, or a partner-level one (told apart by `type`). */
export const EventEnvelope = Schema.Union([WebhookEnvelope, SettlementDestinationEnvelope]).annotate({ identifier: "EventEnvelope" })
/** Any webhook body. */
export type EventEnvelope = typeof EventEnvelope.Type

const isSettlementStage = Schema.is(SettlementStage)

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
  return isPaymentEvent(event) ? paymentEnvelope(event, apiVersion, explorer) : settlementDestinationEnvelope(event, apiVersion)
}

/** The exact bytes sent (and signed) for `event`: its envelope as JSON. */
export const envelopeBody = (event: WebhookEvent, apiVersion: string, explorer?: ExplorerLinksShape): string =>
  JSON.stringify(envelopeOf(event, apiVersion, explorer))
