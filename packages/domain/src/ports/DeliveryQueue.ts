import { Context, type Effect, type Option } from "effect"
import type { EventId, PartnerId, PaymentId, WebhookEndpointId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import type { Delivery, DeliveryId } from "../webhooks/Delivery.ts"
import type { DeliveryResponse } from "../webhooks/DeliveryExchange.ts"
import type { WebhookEndpoint } from "../webhooks/WebhookEndpoint.ts"
import type { WebhookEvent } from "../webhooks/WebhookEvent.ts"

/** A delivery leased to one deliverer, with what sending it needs. */
export interface ClaimedDelivery {
  readonly delivery: Delivery
  readonly event: WebhookEvent
  readonly endpoint: WebhookEndpoint
}

/** An event and the endpoints that receive it. */
export interface FanOut {
  readonly event: WebhookEvent
  readonly endpoints: ReadonlyArray<WebhookEndpointId>
}

/** An event as listed, with its position for paging (`createdAt` in Unix milliseconds). */
export interface ListedEvent {
  readonly id: EventId
  readonly createdAt: number
  readonly event: WebhookEvent
}

/** Which due deliveries a claim may take. */
export interface ClaimOptions {
  /** At most this many in all. */
  readonly limit: number
  /** The lease: no other claim takes the delivery before it ends (unless it is released). */
  readonly leaseMillis: number
  /** At most this many per endpoint, counting `inFlight`, so one endpoint cannot fill a claim. */
  readonly perEndpoint: number
  /**
   * Attempts the caller already has in flight, per endpoint: the claim takes at most `perEndpoint`
   * minus these (none of an endpoint at its limit).
   */
  readonly inFlight?: ReadonlyMap<WebhookEndpointId, number> | undefined
}

/** The outcome of one attempt, as recorded. */
export interface AttemptRecord {
  readonly deliveryId: DeliveryId
  /** Attempts the delivery had when claimed: the record applies only if nobody recorded since. */
  readonly attemptsBefore: number
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
  /** The headers sent (none secret); `null` when nothing could be sent (unreadable secret). */
  readonly requestHeaders: Readonly<Record<string, string>> | null
  /** What the receiver answered; `null` when no response came. */
  readonly response: DeliveryResponse | null
  /** The delivery's status after this attempt. */
  readonly status: Delivery["status"]
  /** Unix milliseconds of the next attempt when `status` is `pending`. */
  readonly nextAttemptAt: number | null
  /** The receiver responded 410 Gone: disable the endpoint and end its other pending deliveries. */
  readonly disableEndpoint: boolean
}

/**
 * Webhook deliveries: the fan-out of outbox events into one delivery per endpoint, and leased
 * claims of due deliveries (at-least-once: a deliverer that dies loses its lease). Infrastructure
 * failures are defects.
 */
export class DeliveryQueue extends Context.Service<DeliveryQueue, {
  /**
   * In one transaction: creates, for each event, a pending delivery due now to each of its
   * endpoints, and marks the events processed. Fanning out an event again creates no second
   * delivery to an endpoint. Answers the number of deliveries created.
   */
  readonly fanOut: (items: ReadonlyArray<FanOut>) => Effect.Effect<number>
  /** Due pending deliveries of active endpoints, oldest due first, leased (`FOR UPDATE SKIP LOCKED`). */
  readonly claim: (options: ClaimOptions) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
  /**
   * Records an attempt (attempts + 1) and ends the lease. Answers `false`, recording nothing, when
   * the delivery changed since it was claimed (another deliverer's lease).
   */
  readonly record: (attempt: AttemptRecord) => Effect.Effect<boolean>
  /** {@link record} for many attempts at once (one statement where possible); answers the ids recorded. */
  readonly recordMany: (attempts: ReadonlyArray<AttemptRecord>) => Effect.Effect<ReadonlyArray<DeliveryId>>
  /** Ends the leases of claimed deliveries that were not attempted (shutdown): due again at once. */
  readonly release: (ids: ReadonlyArray<DeliveryId>) => Effect.Effect<void>
  /** The endpoint's deliveries, newest first, after the cursor. */
  readonly listForEndpoint: (query: {
    readonly endpointId: WebhookEndpointId
    readonly after: Cursor | null
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<Delivery>>
  /** A partner's events of one mode, its payments' and partner-level ones (processed or not; of one payment when `paymentId` is set), newest first, after the cursor. */
  readonly listEvents: (query: {
    readonly partnerId: PartnerId
    readonly mode: Mode
    readonly paymentId?: PaymentId | undefined
    readonly after: Cursor | null
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ListedEvent>>
  /** The deliveries (to any endpoint) of the events of a partner's payment in one mode, newest first, after the cursor. */
  readonly listForPayment: (query: {
    readonly partnerId: PartnerId
    readonly mode: Mode
    readonly paymentId: PaymentId
    readonly after: Cursor | null
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<Delivery>>
  /** An outbox event (processed or not). */
  readonly findEvent: (id: EventId) => Effect.Effect<Option.Option<WebhookEvent>>
  /** New deliveries of `event` (redeliveries), due now, one per endpoint. */
  readonly redeliver: (event: WebhookEvent, endpoints: ReadonlyArray<WebhookEndpointId>) => Effect.Effect<ReadonlyArray<Delivery>>
}>()("@paygate/domain/DeliveryQueue") {}
