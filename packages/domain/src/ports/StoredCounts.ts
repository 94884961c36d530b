import { Context, type Effect } from "effect"
import type { Mode } from "../payment/Payment.ts"
import type { PaymentStatus } from "../payment/PaymentStatus.ts"

/** Payments of one status and mode. */
export interface PaymentCount {
  readonly status: PaymentStatus
  readonly mode: Mode
  readonly count: number
}

/** The outbox's unprocessed events: how many, and when the oldest was created (Unix ms), if any. */
export interface OutboxBacklog {
  readonly unprocessed: number
  readonly oldestCreatedAt: number | null
}

/**
 * Counts over everything stored, for an operator's metrics (read when they are scraped, so each
 * read must stay cheap as data grows: an adapter answers from indexes).
 */
export class StoredCounts extends Context.Service<StoredCounts, {
  /** Payments by status and mode as of `nowMillis` (a waiting payment past its expiry counts as `expired`); combinations with none are left out. */
  readonly payments: (nowMillis: number) => Effect.Effect<ReadonlyArray<PaymentCount>>
  readonly outboxBacklog: Effect.Effect<OutboxBacklog>
}>()("@paygate/domain/StoredCounts") {}
