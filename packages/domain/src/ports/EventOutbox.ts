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
  /**
   * Completes, without leasing or returning them, those of the `limit` oldest claimable events whose
   * partner has no active webhook endpoint: no one can receive them, so fanning them out would only
   * read and decode them to create nothing. Answers how many. An outbox that cannot tell answers 0
   * (the dispatch then completes them with no deliveries, as before).
   */
  readonly completeUnaddressed: (limit: number) => Effect.Effect<number>
  /** Marks an event processed; it is never claimed again. */
  readonly complete: (id: EventId) => Effect.Effect<void>
}>()("@paygate/domain/EventOutbox") {}
