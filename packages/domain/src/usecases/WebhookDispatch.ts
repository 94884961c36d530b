import { Clock, Context, Effect, Layer, Random } from "effect"
import type { Mac } from "effect/crypto"
import { type AttemptRecord, type ClaimedDelivery, DeliveryQueue, type FanOut } from "../ports/DeliveryQueue.ts"
import { type SendResult, WebhookTransport } from "../ports/WebhookTransport.ts"
import { type EndpointOwner, WebhookEndpointRepository } from "../ports/WebhookEndpointRepository.ts"
import { envelopeBody } from "../webhooks/Envelope.ts"
import { ExplorerLinks } from "../ports/ExplorerLinks.ts"
import { retryDelay } from "../webhooks/RetrySchedule.ts"
import { sendSigned } from "./SignedWebhook.ts"
import { shouldReceive, type WebhookEndpoint } from "../webhooks/WebhookEndpoint.ts"
import { eventOwner, type WebhookEvent } from "../webhooks/WebhookEvent.ts"
import { WebhookSettings } from "../webhooks/WebhookSettings.ts"
import { traced } from "./Traced.ts"

/** How a response (or its absence) counts (API rules §6). */
export type AttemptVerdict =
  | { readonly _tag: "Succeeded" }
  /** The receiver is gone for good (410): disable the endpoint, stop retrying. */
  | { readonly _tag: "Gone" }
  | { readonly _tag: "Failed"; readonly reason: string }

/** Success is a 2xx response; a 3xx is a failure (redirects are not followed); 410 disables. */
export const verdictOf = (result: SendResult, timeoutMs: number): AttemptVerdict => {
  switch (result._tag) {
    case "Responded":
      if (result.status >= 200 && result.status <= 299) return { _tag: "Succeeded" }
      if (result.status === 410) return { _tag: "Gone" }
      if (result.status >= 300 && result.status <= 399) {
        return { _tag: "Failed", reason: `HTTP ${result.status} (redirects are not followed)` }
      }
      return { _tag: "Failed", reason: `HTTP ${result.status}` }
    case "TimedOut":
      return { _tag: "Failed", reason: `no answer within ${Math.round(timeoutMs / 1000)} s` }
    case "Blocked":
      return { _tag: "Failed", reason: `refused: the host resolves to a non-public address (${result.address})` }
    case "Failed":
      return { _tag: "Failed", reason: result.message }
  }
}

/**
 * The worker's webhook steps, over the ports: fanning an outbox event out to the endpoints that
 * receive it, and one delivery attempt (envelope, Standard Webhooks signature, send, verdict,
 * next retry).
 */
export class WebhookDispatch extends Context.Service<WebhookDispatch, {
  /**
   * Fans a batch of events out to the active endpoints that receive them and completes the
   * events, in one transaction; answers the deliveries created. The endpoints of all the batch's
   * partners are read at once.
   */
  readonly dispatch: (events: ReadonlyArray<WebhookEvent>) => Effect.Effect<number>
  /** Makes one attempt of a claimed delivery and answers what to record (records nothing). */
  readonly send: (claimed: ClaimedDelivery) => Effect.Effect<AttemptRecord>
  /** {@link send}, then records the attempt; answers what was recorded. */
  readonly attempt: (claimed: ClaimedDelivery) => Effect.Effect<AttemptRecord>
}>()("@paygate/domain/WebhookDispatch") {
  /** The steps over the ports and `Mac` in context. */
  static readonly layer = Layer.effect(
    WebhookDispatch,
    Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointRepository
      const queue = yield* DeliveryQueue
      const transport = yield* WebhookTransport
      const mac = yield* Effect.context<Mac.Mac>()
      const settings = yield* WebhookSettings
      const explorer = yield* ExplorerLinks

      const dispatch = Effect.fnUntraced(function*(events: ReadonlyArray<WebhookEvent>) {
        if (events.length === 0) return 0
        const keyOf = (o: EndpointOwner) => `${o.partnerId}/${o.mode}`
        const owned = events.map((event) => {
          const owner = { partnerId: event.partnerId, mode: eventOwner(event).mode }
          return { event, owner, key: keyOf(owner) }
        })
        const owners = new Map(owned.map(({ key, owner }) => [key, owner] as const))
        // One read for the batch's partners, however many (a backlog interleaves hundreds).
        const byOwner = new Map<string, Array<WebhookEndpoint>>()
        for (const endpoint of yield* endpoints.active([...owners.values()])) {
          const list = byOwner.get(keyOf(endpoint))
          if (list === undefined) byOwner.set(keyOf(endpoint), [endpoint])
          else list.push(endpoint)
        }
        const items: Array<FanOut> = owned.map(({ event, key }) => ({
          event,
          endpoints: (byOwner.get(key) ?? []).filter((e) => shouldReceive(e, event)).map((e) => e.id)
        }))
        return yield* queue.fanOut(items)
      }, traced("WebhookDispatch.dispatch"))

      const sendRequest = sendSigned(transport, settings, mac)

      const send = Effect.fnUntraced(function*({ delivery, endpoint, event }: ClaimedDelivery) {
        const startedAt = yield* Clock.currentTimeMillis
        const body = envelopeBody(event, endpoint.apiVersion, explorer)
        const { requestHeaders, response, result } = yield* sendRequest(endpoint, event.id, Math.floor(startedAt / 1000), body)
        const verdict = verdictOf(result, settings.requestTimeoutMs)
        const attempts = delivery.attempts + 1
        const now = yield* Clock.currentTimeMillis
        const delay = verdict._tag === "Failed"
          ? retryDelay(settings.retrySchedule, attempts, yield* Random.next)
          : undefined
        const record: AttemptRecord = {
          deliveryId: delivery.id,
          attemptsBefore: delivery.attempts,
          statusCode: result._tag === "Responded" ? result.status : null,
          durationMs: result.durationMs,
          error: verdict._tag === "Succeeded" ? null : verdict._tag === "Gone" ? "HTTP 410: the endpoint is gone and was disabled" : verdict.reason,
          requestHeaders,
          response,
          status: verdict._tag === "Succeeded" ? "succeeded" : delay === undefined ? "failed" : "pending",
          nextAttemptAt: delay === undefined ? null : now + delay,
          disableEndpoint: verdict._tag === "Gone"
        }
        return record
      }, traced("WebhookDispatch.send"))

      const attempt = (claimed: ClaimedDelivery) => Effect.tap(send(claimed), queue.record)

      return WebhookDispatch.of({ dispatch, send, attempt })
    })
  )
}
