import { Context, type Effect } from "effect"

/** One signed webhook request. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The whole exchange must end within this many milliseconds. */
  readonly timeoutMs: number
  /** Whether loopback, private and other non-public addresses may be called. */
  readonly allowPrivateAddresses: boolean
  /** Most bytes of the response's body to read and answer; the rest is never read. */
  readonly maxResponseBytes: number
}

/** What came of sending a webhook. */
export type SendResult =
  /** The receiver answered (any status; redirects are answers, never followed). */
  | {
    readonly _tag: "Responded"
    readonly status: number
    /** Until the response's headers came. */
    readonly durationMs: number
    readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
    /** The body's first bytes, at most `maxResponseBytes`. */
    readonly body: Uint8Array
    /** The body had more bytes than were read, or did not arrive whole within the time limit. */
    readonly truncated: boolean
  }
  /** No response within the time limit. */
  | { readonly _tag: "TimedOut"; readonly durationMs: number }
  /** The host resolved to an address the SSRF guard refuses; nothing was sent. */
  | { readonly _tag: "Blocked"; readonly address: string; readonly durationMs: number }
  /** Resolving, connecting or the exchange failed. */
  | { readonly _tag: "Failed"; readonly message: string; readonly durationMs: number }

/**
 * Sends webhooks over HTTP: one POST, redirects not followed, the host resolved once, checked by
 * the SSRF guard on the resolved address and connected to at that very address.
 */
export class WebhookTransport extends Context.Service<WebhookTransport, {
  readonly send: (request: WebhookRequest) => Effect.Effect<SendResult>
}>()("@paygate/domain/WebhookTransport") {}
