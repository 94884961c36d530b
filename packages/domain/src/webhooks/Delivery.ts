import { Schema } from "effect"
import { EventId, WebhookEndpointId } from "../ids/Ids.ts"
import { DeliveryResponse, HeaderMap } from "./DeliveryExchange.ts"
import { WebhookEventType } from "./WebhookEvent.ts"

/**
 * `pending` (due at `nextAttemptAt`), `succeeded` (a 2xx response) or `failed` (retries exhausted,
 * endpoint gone or deleted); a failed delivery can be redelivered (a new delivery).
 */
export const DeliveryStatus = Schema.Literals(["pending", "succeeded", "failed"])
/** A delivery status. */
export type DeliveryStatus = typeof DeliveryStatus.Type

/** `dlv_…`: the id of one delivery (one event to one endpoint; a redelivery is a new one). */
export const DeliveryId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^dlv_[A-Za-z0-9]{1,64}$/)),
  Schema.brand("DeliveryId")
)
/** A delivery id. */
export type DeliveryId = typeof DeliveryId.Type

/** One event on its way to one endpoint, with the outcome of its latest attempt. */
export class Delivery extends Schema.Class<Delivery>("paygate/Delivery")({
  id: DeliveryId,
  eventId: EventId,
  eventType: WebhookEventType,
  endpointId: WebhookEndpointId,
  status: DeliveryStatus,
  /** Attempts made so far. */
  attempts: Schema.Int,
  /** Unix milliseconds of the next attempt while `pending`; `null` once final. */
  nextAttemptAt: Schema.NullOr(Schema.Int),
  /** HTTP status of the latest answer; `null` when none came (timeout, refused, blocked address). */
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastDurationMs: Schema.NullOr(Schema.Int),
  /** Why the latest attempt failed, without secrets (`null` after a success). */
  lastError: Schema.NullOr(Schema.String),
  /** The headers the latest attempt sent (none secret); `null` before the first attempt. */
  lastRequestHeaders: Schema.NullOr(HeaderMap),
  /** What the receiver answered to the latest attempt; `null` when none came or before the first. */
  lastResponse: Schema.NullOr(DeliveryResponse),
  /** Whether this delivery was asked for with `POST /v1/events/{eventId}/redeliver`. */
  redelivery: Schema.Boolean,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}
