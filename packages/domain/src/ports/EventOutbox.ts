import { Context, type Effect } from "effect"
import type { EventId } from "../ids/Ids.ts"
import type { WebhookEvent } from "../webhooks/WebhookEvent.ts"

/**
 * Reading side of the outbox that {@link PaymentRepository} (and the other stores of changes that report events) writes to. Claims are leases: an event
 * claimed by a worker that dies becomes claimable again when the lease ends (at-least-once).
 */
export class EventOutbox extends Context.Service<EventOutbox, {
  /** Up to `limit` unprocessed events, leased to the caller for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<WebhookEvent>>
  /** Marks an event processed; it is never claimed again. */
  readonly complete: (id: EventId) => Effect.Effect<void>
}>()("@paygate/domain/EventOutbox") {}
