import { Context, type Effect, type Option } from "effect"
import type { MerchantId, PartnerId, PlanId, SubscriptionId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import type { Subscription } from "../subscription/Subscription.ts"
import type { SubscriptionCharge } from "../subscription/SubscriptionCharge.ts"
import type { SubscriptionEvent } from "../subscription/SubscriptionEvent.ts"

/** A subscription change to commit: the subscription's next version, the charge it touched, its events. */
export interface SubscriptionChange {
  readonly subscription: Subscription
  /** The charge's next version (a new one has version 1), if the change touched one. */
  readonly charge?: SubscriptionCharge | undefined
  readonly events?: ReadonlyArray<SubscriptionEvent> | undefined
  /** A new subscription stored with the change (the one that replaces it), unless one with its id exists. */
  readonly created?: Subscription | undefined
}

/** Which subscriptions a list covers, newest first (`createdAt`, then `id`, descending). */
export interface SubscriptionQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly merchantId?: MerchantId | undefined
  readonly planId?: PlanId | undefined
  readonly after: Cursor | null
  readonly limit: number
}

/**
 * Subscriptions and their charges. A change commits in one transaction: the subscription (a
 * compare-and-set on its version: the stored one must be `version - 1`), the charge (likewise, or
 * inserted when its version is 1 and none exists for the period) and the outbox events. The worker's
 * queue leases subscriptions whose `nextCheckAt` has come, as `ChainWork` does payments.
 */
export class SubscriptionRepository extends Context.Service<SubscriptionRepository, {
  /** Stores a new subscription; answers `false`, writing nothing, when one with its id exists. */
  readonly insert: (subscription: Subscription) => Effect.Effect<boolean>
  readonly findById: (id: SubscriptionId) => Effect.Effect<Option.Option<Subscription>>
  readonly list: (query: SubscriptionQuery) => Effect.Effect<ReadonlyArray<Subscription>>
  /** The subscription's charges, by period. */
  readonly charges: (id: SubscriptionId) => Effect.Effect<ReadonlyArray<SubscriptionCharge>>
  /** Commits the change; answers `false`, writing nothing, when another writer changed the subscription or the charge first. */
  readonly commit: (change: SubscriptionChange) => Effect.Effect<boolean>
  /**
   * Leases up to `limit` subscriptions whose `nextCheckAt` has come and that no live lease holds:
   * those not final, and final ones the contract still holds open (`closedOnChain` false).
   */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<SubscriptionId>>
  /**
   * Ends the lease on `id`; it is not due again before `afterMillis` from now (its `nextCheckAt`
   * moves later if sooner: a look that failed without committing does not come straight back).
   */
  readonly release: (id: SubscriptionId, afterMillis: number) => Effect.Effect<void>
}>()("@paygate/domain/SubscriptionRepository") {}
