/**
 * Checking a webhook request on the receiving side (API rules §6, Standard Webhooks): the
 * `webhook-signature` must hold the `v1` HMAC of `webhook-id.webhook-timestamp.body` under the
 * endpoint's secret, and the timestamp must be recent (replays of old requests are refused).
 * Signing uses the service's own {@link sign}, so both sides compute the same bytes.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto"
import { type EventEnvelope, secretKeyBytes, sign, type SignedHeaders, type TestEnvelope } from "@paygate/domain"
import { Effect, Redacted } from "effect"
import { Mac, SecureRandom } from "effect/crypto"

/** What a webhook carries: a payment or partner-level event, or the `webhook.test` event of `POST /v1/webhooks/{id}/test`. */
export type WebhookEvent = EventEnvelope | TestEnvelope

/** A webhook request that is not signed by the endpoint's secret, or is too old. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** The headers of a request: a fetch `Headers`, or Node's `IncomingHttpHeaders`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** What {@link verifyWebhook} checks. */
export interface WebhookRequest {
  /** The endpoint's secret, `whsec_…` (shown when it was registered, or printed by `npm run webhooks -- listen`). */
  readonly secret: string
  readonly headers: WebhookHeaders
  /** The raw body, exactly as received (parse it only after verifying). */
  readonly body: string | Uint8Array
  /** How far the timestamp may be from now, in seconds (default 300). */
  readonly toleranceSeconds?: number | undefined
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name] ?? headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : (value as string | undefined)
}

/** The Standard Webhooks headers of `body` sent as message `id` at `timestampSeconds`. */
export const signWebhook = (secret: string, id: string, timestampSeconds: number, body: string): Promise<SignedHeaders> => {
  if (secretKeyBytes(secret) === undefined) return Promise.reject(new WebhookVerificationError("the secret must be whsec_ followed by base64"))
  return Effect.runPromise(sign(Redacted.make(secret), id, timestampSeconds, body).pipe(Effect.provide(Mac.layerWebCrypto), Effect.provide(SecureRandom.layerWebCrypto)))
}

/**
 * Checks the signature and age of a webhook request; answers its parsed event. Rejects with a
 * {@link WebhookVerificationError} (respond 400 then, and do not act on the body).
 */
export const verifyWebhook = async (request: WebhookRequest): Promise<WebhookEvent> => {
  const id = header(request.headers, "webhook-id")
  const timestamp = header(request.headers, "webhook-timestamp")
  const signatures = header(request.headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
  }
  const seconds = /^[0-9]{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN
  const tolerance = request.toleranceSeconds ?? 300
  if (!(Math.abs(Date.now() / 1000 - seconds) <= tolerance)) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is more than ${tolerance} s away from now`)
  }
  const body = typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body)
  const expected = Buffer.from((await signWebhook(request.secret, id, seconds, body))["webhook-signature"])
  // The header may list several signatures (secret rotation): any one that matches will do.
  const matches = signatures.split(" ").some((candidate) => {
    const given = Buffer.from(candidate)
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw new WebhookVerificationError("no webhook-signature matches the secret")
  return JSON.parse(body) as WebhookEvent
}
