import * as HandlerGroup from "./HandlerGroup.ts"
import { type Delivery, type DeliveryResponse, effectiveEvents, envelopeOf, ExplorerLinks, Payments, revealSecret, type WebhookEndpoint, Webhooks } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/Security.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

/** The partner API's view of an endpoint (never its secret). */
export const toEndpointRecord = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: effectiveEvents(endpoint),
  merchantId: endpoint.merchantId,
  status: endpoint.status,
  apiVersion: endpoint.apiVersion,
  createdAt: seconds(endpoint.createdAt)
})

/** The partner API's view of a receiver's response. */
const toResponseRecord = (response: DeliveryResponse | null) =>
  response === null ? null : {
    status: response.status,
    contentType: response.headers["content-type"] ?? null,
    headers: response.headers,
    body: response.body,
    truncated: response.truncated
  }

/** The partner API's view of a delivery. */
export const toDeliveryRecord = (delivery: Delivery) => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  endpointId: delivery.endpointId,
  status: delivery.status,
  attempts: delivery.attempts,
  nextAttemptAt: delivery.nextAttemptAt === null ? null : seconds(delivery.nextAttemptAt),
  lastStatusCode: delivery.lastStatusCode,
  lastDurationMs: delivery.lastDurationMs,
  lastError: delivery.lastError,
  request: delivery.lastRequestHeaders === null ? null : { headers: delivery.lastRequestHeaders },
  response: toResponseRecord(delivery.lastResponse),
  redelivery: delivery.redelivery,
  createdAt: seconds(delivery.createdAt),
  updatedAt: seconds(delivery.updatedAt)
})

/** Partner API webhook handlers (API rules §6). */
export const WebhooksHandlers = HandlerGroup.group(
  PaygateApi,
  "webhooks",
  Effect.fn(function*(handlers) {
    const webhooks = yield* Webhooks
    const explorer = yield* ExplorerLinks
    const payments = yield* Payments
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const registered = yield* webhooks.register(
            { partnerId: caller.partner.id, mode: caller.mode, apiVersion: caller.version },
            payload
          )
          return { ...toEndpointRecord(registered.endpoint), secret: revealSecret(registered) }
        }))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* webhooks.list(yield* partnerAccess, query)
          return { data: page.data.map(toEndpointRecord), nextCursor: page.nextCursor }
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const id = yield* webhooks.remove(yield* partnerAccess, params.id)
          return { id, deleted: true as const }
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          return toEndpointRecord(yield* webhooks.update(yield* partnerAccess, params.id, payload))
        }))
      .handle("rotateSecret", ({ params }) =>
        Effect.gen(function*() {
          const rotated = yield* webhooks.rotateSecret(yield* partnerAccess, params.id)
          return { ...toEndpointRecord(rotated.endpoint), secret: revealSecret(rotated) }
        }))
      .handle("deliveries", ({ params, query }) =>
        Effect.gen(function*() {
          const page = yield* webhooks.deliveries(yield* partnerAccess, params.id, query)
          return { data: page.data.map(toDeliveryRecord), nextCursor: page.nextCursor }
        }))
      .handle("redeliver", ({ params, query }) =>
        Effect.gen(function*() {
          const redelivery = yield* webhooks.redeliver(yield* partnerAccess, params.eventId, query.endpointId)
          return { eventId: redelivery.eventId, deliveries: redelivery.deliveries.map(toDeliveryRecord) }
        }))
      .handle("test", ({ params }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const sent = yield* webhooks.sendTest({ partnerId: caller.partner.id, mode: caller.mode, apiVersion: caller.version }, params.id)
          return { ...sent, response: toResponseRecord(sent.response) }
        }))
      .handle("events", ({ query }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const page = yield* webhooks.events(yield* partnerAccess, query)
          return { data: page.data.map((event) => envelopeOf(event, caller.version, explorer)), nextCursor: page.nextCursor }
        }))
      .handle("event", ({ params }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          return envelopeOf(yield* webhooks.event(yield* partnerAccess, params.eventId), caller.version, explorer)
        }))
      .handle("paymentDeliveries", ({ params, query }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          // Another partner's (or mode's) payment is not found, as everywhere (API rules §1).
          const payment = yield* payments.find(access, params.id)
          const page = yield* webhooks.paymentDeliveries(access, payment.id, query)
          return { data: page.data.map(toDeliveryRecord), nextCursor: page.nextCursor }
        }))
  })
)
