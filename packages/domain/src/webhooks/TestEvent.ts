import { Schema } from "effect"
import { NonNegativeInt } from "../wire/NonNegativeInt.ts"
import type { DeliveryResponse } from "./DeliveryExchange.ts"

/**
 * The body of a test webhook (`POST /v1/webhooks/{id}/test`): the envelope of API rules §6 with
 * the type `webhook.test` and no payment, so a receiver that acts on payment events ignores it
 * while its signature check runs as for any event. Its id is a fresh `evt_…` that no
 * `GET /v1/events` lists.
 */
export const TestEnvelope = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("webhook.test"),
  apiVersion: Schema.String,
  createdAt: NonNegativeInt,
  data: Schema.Struct({
    endpointId: Schema.String,
    message: Schema.String
  })
}).annotate({ identifier: "TestWebhookEnvelope" })
/** A test webhook's body. */
export type TestEnvelope = typeof TestEnvelope.Type

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
