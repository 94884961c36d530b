import {
  DeliveryStatus,
  MerchantNotFound,
  PartnerNotFound,
  PaymentNotFound,
  WebhookEndpointStatus,
  WebhookEventType
} from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import { ResponseStorage } from "./ResponseStorage.ts"
import * as Wire from "./wire/index.ts"

/**
 * Body of `POST /v1/webhooks`. `events` absent, `null` or empty: every event type; unknown types
 * are `invalid_params`. `merchantId`: only that merchant's payments.
 */
export const CreateWebhookRequest = Schema.Struct({
  url: Schema.String,
  events: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
  merchantId: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "CreateWebhookRequest" })

/**
 * Body of `PATCH /v1/webhooks/{id}`: only the fields given change. `events` as at registration
 * (`null` or empty: every type); `status` `disabled` stops deliveries (its pending ones end
 * `failed`, each can be redelivered), `active` resumes them for events from then on.
 */
export const UpdateWebhookRequest = Schema.Struct({
  events: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
  status: Schema.optionalKey(WebhookEndpointStatus)
}).annotate({ identifier: "UpdateWebhookRequest" })

/** A webhook endpoint as the partner API shows it (never with its secret); times in Unix seconds. */
export const WebhookEndpointRecord = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  /** The event types it receives (every type when registered without a list). */
  events: Schema.Array(WebhookEventType),
  merchantId: Schema.NullOr(Schema.String),
  /** `disabled` once the receiver responded 410 Gone, or by `PATCH /v1/webhooks/{id}`. */
  status: WebhookEndpointStatus,
  apiVersion: Schema.String,
  createdAt: Wire.NonNegativeInt
}).annotate({ identifier: "WebhookEndpointRecord" })

/** Response of `POST /v1/webhooks`: the endpoint and its signing secret (`whsec_` + base64), shown this once. */
export const CreatedWebhook = Schema.Struct({
  ...WebhookEndpointRecord.fields,
  secret: Schema.String
}).annotate({ identifier: "CreatedWebhook" })

/** One page of endpoints. */
export const WebhookEndpointPage = Schema.Struct({
  data: Schema.Array(WebhookEndpointRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WebhookEndpointPage" })

/**
 * What the latest attempt sent besides its body (the body is the event: `GET /v1/events/{eventId}`):
 * its headers, none secret (the signature is shown, never the signing secret).
 */
export const DeliveryRequestRecord = Schema.Struct({
  headers: Schema.Record(Schema.String, Schema.String)
}).annotate({ identifier: "DeliveryRequestRecord" })

/** How the receiver responded to the latest attempt. */
export const DeliveryResponseRecord = Schema.Struct({
  status: Schema.Int,
  /** The response's `content-type` header, if it had one. */
  contentType: Schema.NullOr(Schema.String),
  /** The headers worth seeing that it had: `content-type`, `content-length`, `location`, `retry-after`. */
  headers: Schema.Record(Schema.String, Schema.String),
  /**
   * The body's first 2,048 bytes as text: invalid UTF-8 and NUL replaced by U+FFFD; nothing past
   * them was read.
   */
  body: Schema.String,
  /** The body was longer, or did not arrive whole within the time limit. */
  truncated: Schema.Boolean
}).annotate({ identifier: "DeliveryResponseRecord" })

/** One delivery of an event to an endpoint: its status and its latest attempt. Times in Unix seconds. */
export const DeliveryRecord = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  eventType: WebhookEventType,
  endpointId: Schema.String,
  status: DeliveryStatus,
  attempts: Wire.NonNegativeInt,
  /** When the next attempt is due, while `pending`. */
  nextAttemptAt: Schema.NullOr(Wire.NonNegativeInt),
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastDurationMs: Schema.NullOr(Wire.NonNegativeInt),
  lastError: Schema.NullOr(Schema.String),
  /** The latest attempt's request headers; `null` before the first attempt. */
  request: Schema.NullOr(DeliveryRequestRecord),
  /** The receiver's response to the latest attempt; `null` when none came (time limit, refused) or before the first. */
  response: Schema.NullOr(DeliveryResponseRecord),
  /** Requested with `POST /v1/events/{eventId}/redeliver`. */
  redelivery: Schema.Boolean,
  createdAt: Wire.NonNegativeInt,
  updatedAt: Wire.NonNegativeInt
}).annotate({ identifier: "DeliveryRecord" })

/** One page of deliveries, newest first. */
export const DeliveryPage = Schema.Struct({
  data: Schema.Array(DeliveryRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "DeliveryPage" })

/** Response of `POST /v1/events/{eventId}/redeliver` (202): the new deliveries. */
export const RedeliveryRecord = Schema.Struct({
  eventId: Schema.String,
  deliveries: Schema.Array(DeliveryRecord)
}).annotate({ identifier: "RedeliveryRecord" })

/** One page of the partner's events, newest first: each the body its endpoints receive. */
export const EventPage = Schema.Struct({
  data: Schema.Array(Wire.EventEnvelope),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "EventPage" })

/** Response of `POST /v1/webhooks/{id}/test`: how the endpoint responded to a signed `webhook.test` event. */
export const TestWebhookResult = Schema.Struct({
  /** The test event's id (its `webhook-id` header); no `GET /v1/events` lists it. */
  eventId: Schema.String,
  endpointId: Schema.String,
  /** The receiver responded 2xx within the webhook timeout. */
  delivered: Schema.Boolean,
  statusCode: Schema.NullOr(Schema.Int),
  durationMs: Wire.NonNegativeInt,
  /** Why it was not delivered (e.g. `HTTP 500`, no response in time, refused by the SSRF guard). */
  error: Schema.NullOr(Schema.String),
  /** What the receiver responded; `null` when no response came. */
  response: Schema.NullOr(DeliveryResponseRecord)
}).annotate({ identifier: "TestWebhookResult" })

const paging = {
  limit: Schema.optionalKey(Schema.String.annotate({ description: "1 to 100; default 20." })),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "nextCursor of the previous page." }))
}
const endpointParams = { id: Schema.String }
// API rules §1: a missing sub-resource responds with its owner's not-found code (endpoint → partner,
// event → payment), as crypto settlements respond with merchant_not_found.
const endpointNotFound = wire(PartnerNotFound, "PartnerNotFound")

/**
 * Partner API: webhook endpoints, their deliveries and redelivery (API rules §6). Endpoints are
 * per partner and mode (the key's); deliveries are signed with Standard Webhooks.
 */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/v1/webhooks", {
      payload: CreateWebhookRequest,
      success: CreatedWebhook.pipe(HttpApiSchema.status(201)),
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(
      OpenApi.Summary,
      "Register a webhook endpoint (HTTPS; plain HTTP in sandbox; no private addresses); the secret is shown once"
    ),
    HttpApiEndpoint.get("list", "/v1/webhooks", {
      query: paging,
      success: WebhookEndpointPage
    }).annotate(OpenApi.Summary, "List the partner's webhook endpoints, newest first"),
    HttpApiEndpoint.delete("remove", "/v1/webhooks/:id", {
      params: endpointParams,
      success: Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }).annotate({ identifier: "WebhookDeleted" }),
      error: endpointNotFound
    }).annotate(OpenApi.Summary, "Delete a webhook endpoint; its pending deliveries end failed"),
    HttpApiEndpoint.patch("update", "/v1/webhooks/:id", {
      params: endpointParams,
      payload: UpdateWebhookRequest,
      success: WebhookEndpointRecord,
      error: endpointNotFound
    }).annotate(OpenApi.Summary, "Change an endpoint's event types, or disable and enable it"),
    HttpApiEndpoint.post("rotateSecret", "/v1/webhooks/:id/rotate-secret", {
      params: endpointParams,
      success: CreatedWebhook,
      error: endpointNotFound
    }).annotate(OpenApi.Summary, "Give an endpoint a new signing secret, shown once; the old one stops at once")
      .annotate(
        OpenApi.Description,
        "Every delivery attempt from now on is signed with the new secret only (no grace period: put the new secret in " +
          "the receiver right away). An attempt that fails meanwhile is retried on the usual schedule (after 5 s, 5 min, …) " +
          "and a failed delivery can be redelivered, so nothing is lost."
      ),
    HttpApiEndpoint.get("deliveries", "/v1/webhooks/:id/deliveries", {
      params: endpointParams,
      query: paging,
      success: DeliveryPage,
      error: endpointNotFound
    }).annotate(OpenApi.Summary, "An endpoint's deliveries, newest first: status, attempts, last status code and duration"),
    HttpApiEndpoint.post("redeliver", "/v1/events/:eventId/redeliver", {
      params: { eventId: Schema.String },
      query: {
        endpointId: Schema.optionalKey(Schema.String.annotate({ description: "Only to this endpoint (default: every active endpoint subscribed to the event)." }))
      },
      success: RedeliveryRecord.pipe(HttpApiSchema.status(202)),
      error: [wire(PaymentNotFound, "PaymentNotFound"), endpointNotFound]
    }).annotate(OpenApi.Summary, "Send an event again to the active endpoints that subscribe to it, or to one endpoint"),
    HttpApiEndpoint.post("test", "/v1/webhooks/:id/test", {
      params: endpointParams,
      success: TestWebhookResult,
      error: endpointNotFound
    }).annotate(OpenApi.Summary, "Send a signed test event to an endpoint now and answer what it replied")
      .annotate(
        OpenApi.Description,
        "Sends `{\"id\": \"evt_…\", \"type\": \"webhook.test\", \"apiVersion\", \"createdAt\", \"data\": {\"endpointId\", \"message\"}}` " +
          "to the endpoint, signed like every webhook (Standard Webhooks, the endpoint's secret), through the same SSRF guard, " +
          "and answers 200 with the receiver's status, whether it answered 2xx or not. Nothing is stored or retried, and no " +
          "payment changes: receivers that act on `payment.*` types ignore it. CLI: `npm run webhooks -- test <endpointId>`."
      ).annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.get("events", "/v1/events", {
      query: {
        ...paging,
        paymentId: Schema.optionalKey(Schema.String.annotate({ description: "Only this payment's events (its timeline)." }))
      },
      success: EventPage
    }).annotate(OpenApi.Summary, "The partner's events (mode of the key), newest first: the bodies its webhook endpoints receive")
      .annotate(
        OpenApi.Description,
        "Every event of the partner's payments in the key's mode, delivered or not, each as the webhook envelope an " +
          "endpoint pinned to the request's API version receives. `npm run webhooks -- listen --forward-to <url>` polls it " +
          "and forwards new events to a local URL, signed with a secret it prints: webhooks on a developer's machine " +
          "without registering a private address."
      )
  )
  .add(
    HttpApiEndpoint.get("event", "/v1/events/:eventId", {
      params: { eventId: Schema.String },
      success: Wire.EventEnvelope,
      error: wire(PaymentNotFound, "PaymentNotFound")
    }).annotate(OpenApi.Summary, "One of the partner's events: the body its webhook endpoints receive"),
    HttpApiEndpoint.get("paymentDeliveries", "/v1/payments/:id/deliveries", {
      params: { id: Schema.String },
      query: paging,
      success: DeliveryPage,
      error: wire(PaymentNotFound, "PaymentNotFound")
    }).annotate(OpenApi.Summary, "A payment's webhook deliveries to every endpoint of the partner, newest first")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Webhooks")
{}
