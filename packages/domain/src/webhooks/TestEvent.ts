import type { DeliveryResponse } from "./DeliveryExchange.ts"

/**
 * The body of a test webhook (`POST /v1/webhooks/{id}/test`): the envelope of API rules §6 with
 * the type `webhook.test` and no payment, so a receiver that acts on payment events ignores it
 * while its signature check runs as for any event. Its id is a fresh `evt_…` that no
 * `GET /v1/events` lists.
 */
export interface TestEnvelope {
  readonly id: string
  readonly type: "webhook.test"
  readonly apiVersion: string
  readonly createdAt: number
  readonly data: {
    readonly endpointId: string
    readonly message: string
  }
}

/** What came of sending a test webhook: the receiver's response, as a delivery records it. */
export interface TestDelivery {
  readonly eventId: string
  readonly endpointId: string
  /** The receiver responded 2xx in time. */
  readonly delivered: boolean
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
  /** What the receiver answered; `null` when no response came. */
  readonly response: DeliveryResponse | null
}
