import { type Context, Effect, Redacted } from "effect"
import type { Mac } from "effect/crypto"
import type { SendResult, WebhookTransport } from "../ports/WebhookTransport.ts"
import { type DeliveryResponse, responseBodyLimit, responseOf } from "../webhooks/DeliveryExchange.ts"
import { secretKeyBytes, sign } from "../webhooks/Signature.ts"
import type { WebhookEndpoint } from "../webhooks/WebhookEndpoint.ts"
import type { WebhookSettingsShape } from "../webhooks/WebhookSettings.ts"

/** The headers of every webhook request besides its signature. */
export const deliveryHeaders = { "content-type": "application/json", "user-agent": "paygate-webhooks/1" } as const

/** One signed request to an endpoint and what came of it. */
export interface SignedExchange {
  /** The headers sent (none secret); `null` when nothing could be sent (unreadable secret). */
  readonly requestHeaders: Readonly<Record<string, string>> | null
  readonly result: SendResult
  /** The receiver's response as kept; `null` when none came. */
  readonly response: DeliveryResponse | null
}

/**
 * Signs `body` as message `eventId` at `timestampSeconds` with the endpoint's secret (Standard
 * Webhooks) and sends it through the transport's SSRF guard, reading at most
 * {@link responseBodyLimit} bytes of the response. Shared by deliveries and test events.
 */
export const sendSigned = (
  transport: WebhookTransport["Service"],
  settings: WebhookSettingsShape,
  mac: Context.Context<Mac.Mac>
) =>
(endpoint: WebhookEndpoint, eventId: string, timestampSeconds: number, body: string): Effect.Effect<SignedExchange> =>
  Effect.gen(function*() {
    if (secretKeyBytes(Redacted.value(endpoint.secret)) === undefined) {
      const message = "the endpoint's signing secret cannot be read (was WEBHOOK_SECRET_KEY changed?)"
      return { requestHeaders: null, result: { _tag: "Failed", message, durationMs: 0 }, response: null }
    }
    const signed = yield* Effect.provideContext(sign(endpoint.secret, eventId, timestampSeconds, body), mac)
    const requestHeaders = { ...signed, ...deliveryHeaders }
    const result = yield* transport.send({
      url: endpoint.url,
      headers: requestHeaders,
      body,
      timeoutMs: settings.requestTimeoutMs,
      allowPrivateAddresses: settings.allowPrivateAddresses,
      maxResponseBytes: responseBodyLimit
    })
    return { requestHeaders, result, response: result._tag === "Responded" ? responseOf(result) : null }
  })
