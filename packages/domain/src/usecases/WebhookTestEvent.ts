import { Clock, Effect } from "effect"
import type { IdGenerator } from "../ids/IdGenerator.ts"
import type { TestDelivery, TestEnvelope } from "../webhooks/TestEvent.ts"
import type { WebhookEndpoint } from "../webhooks/WebhookEndpoint.ts"
import type { WebhookSettingsShape } from "../webhooks/WebhookSettings.ts"
import type { SignedExchange } from "./SignedWebhook.ts"
import { verdictOf } from "./WebhookDispatch.ts"

/**
 * Sends a signed `webhook.test` event to an endpoint now (`POST /v1/webhooks/{id}/test`) and
 * answers what the receiver did, its response included. Nothing is stored or retried.
 */
export const sendTestEvent = (
  send: (endpoint: WebhookEndpoint, eventId: string, timestampSeconds: number, body: string) => Effect.Effect<SignedExchange>,
  ids: IdGenerator["Service"],
  settings: WebhookSettingsShape
) =>
(endpoint: WebhookEndpoint): Effect.Effect<TestDelivery> =>
  Effect.gen(function*() {
    const seconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const eventId = yield* ids.make("event")
    const envelope: TestEnvelope = {
      id: eventId,
      type: "webhook.test",
      apiVersion: endpoint.apiVersion,
      createdAt: seconds,
      data: { endpointId: endpoint.id, message: "A test event sent with POST /v1/webhooks/{id}/test; no payment changed." }
    }
    const { response, result } = yield* send(endpoint, eventId, seconds, JSON.stringify(envelope))
    const verdict = verdictOf(result, settings.requestTimeoutMs)
    return {
      eventId,
      endpointId: endpoint.id,
      delivered: verdict._tag === "Succeeded",
      statusCode: result._tag === "Responded" ? result.status : null,
      durationMs: result.durationMs,
      error: verdict._tag === "Failed" ? verdict.reason : verdict._tag === "Gone" ? "HTTP 410" : null,
      response
    }
  })
