/**
 * Webhook settings from configuration:
 *
 * - `WEBHOOK_ALLOW_PRIVATE` (`true`/`false`, default `false`): allow endpoints with plain HTTP and
 *   loopback, private, link-local, CGNAT, metadata and other non-public addresses, in every mode,
 *   at registration and at delivery. Meant for development and tests; never in production.
 *   Without it, sandbox endpoints may still use plain HTTP (to public addresses only).
 * - `WEBHOOK_RETRY_SCHEDULE_MS` (optional): comma-separated retry delays in milliseconds instead of
 *   API rules §6's (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; ±10% jitter either way).
 * - `WEBHOOK_TIMEOUT_MS` (default 15000): how long a receiver has to answer.
 *
 * @module
 */
import { contractRetrySchedule, WebhookSettings, type WebhookSettingsShape } from "@paygate/domain"
import { Config, Effect, Layer, Option, Schema } from "effect"
import * as Configuration from "../Configuration.ts"

/** A webhook setting has an invalid value. */
export class InvalidWebhookConfig extends Schema.TaggedError<InvalidWebhookConfig>()("InvalidWebhookConfig", {
  message: Schema.String
}) {}

/** The settings from the environment (see the module comment). */
export const settingsFromConfig: Effect.Effect<WebhookSettingsShape, Config.ConfigError | InvalidWebhookConfig> = Effect.gen(
  function*() {
    const allowPrivateAddresses = yield* Configuration.webhooks.allowPrivate
    const scheduleText = yield* Configuration.webhooks.retryScheduleMs
    const requestTimeoutMs = yield* Configuration.webhooks.timeoutMs
    if (requestTimeoutMs <= 0) return yield* new InvalidWebhookConfig({ message: "WEBHOOK_TIMEOUT_MS must be positive." })
    let retrySchedule = contractRetrySchedule
    if (Option.isSome(scheduleText) && scheduleText.value.trim() !== "") {
      const delays = scheduleText.value.split(",").map((part) => Number(part.trim()))
      if (!delays.every((d) => Number.isSafeInteger(d) && d >= 0)) {
        return yield* new InvalidWebhookConfig({ message: "WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated milliseconds." })
      }
      retrySchedule = { delays, jitter: contractRetrySchedule.jitter }
    }
    return { allowPrivateAddresses, retrySchedule, requestTimeoutMs }
  }
)

/** `WebhookSettings` from the environment. */
export const layer = Layer.effect(WebhookSettings, settingsFromConfig)
