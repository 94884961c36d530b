import { Context } from "effect"
import { contractRetrySchedule, type RetrySchedule } from "./RetrySchedule.ts"

/** Tunables of webhook registration and delivery; the defaults are the contract's. */
export interface WebhookSettingsShape {
  /**
   * Whether endpoints may use plain HTTP and loopback, private, link-local, CGNAT, metadata and
   * other non-public addresses, in every mode (`WEBHOOK_ALLOW_PRIVATE=true`). Without it,
   * sandbox endpoints may use plain HTTP to public addresses, and nothing else is allowed.
   */
  readonly allowPrivateAddresses: boolean
  /** When failed deliveries are retried (API rules §6). */
  readonly retrySchedule: RetrySchedule
  /** How long a receiver has to answer (API rules §6: 15 s). */
  readonly requestTimeoutMs: number
}

/** Webhook tunables, overridable per host (configuration) and per test (fast schedules). */
export const WebhookSettings = Context.Reference<WebhookSettingsShape>("@paygate/domain/WebhookSettings", {
  defaultValue: () => ({ allowPrivateAddresses: false, retrySchedule: contractRetrySchedule, requestTimeoutMs: 15_000 })
})
