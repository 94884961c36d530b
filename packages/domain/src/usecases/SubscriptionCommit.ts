import { Clock, Effect } from "effect"
import type { IdGenerator } from "../ids/IdGenerator.ts"
import type { SubscriptionRepository } from "../ports/SubscriptionRepository.ts"
import { Subscription } from "../subscription/Subscription.ts"
import { SubscriptionCharge } from "../subscription/SubscriptionCharge.ts"
import { SubscriptionEvent, type SubscriptionEventType } from "../subscription/SubscriptionEvent.ts"

/** A charge's change: the version read (`undefined` for a charge not stored yet) and what changes. */
export interface ChargeChange {
  readonly read: SubscriptionCharge | undefined
  readonly charge: SubscriptionCharge
  readonly patch: Partial<SubscriptionCharge>
}

/**
 * Commits the next version of a subscription read as `read` (and of a charge), with one event of
 * each type carrying them; answers the subscription written and whether it was (`false`: another
 * writer changed it first, and nothing was written).
 */
export const makeSubscriptionCommit = (repo: SubscriptionRepository["Service"], ids: IdGenerator["Service"]) =>
(
  read: Subscription,
  patch: Partial<Subscription>,
  change?: ChargeChange,
  types: ReadonlyArray<SubscriptionEventType> = []
) =>
  Effect.gen(function*() {
    const millis = yield* Clock.currentTimeMillis
    const updatedAt = Math.max(millis, read.updatedAt)
    const subscription = new Subscription({ ...read, ...patch, version: read.version + 1, updatedAt })
    const charge = change === undefined
      ? undefined
      : new SubscriptionCharge({ ...change.charge, ...change.patch, version: (change.read?.version ?? 0) + 1, updatedAt })
    const events = yield* Effect.forEach(types, (type) =>
      Effect.map(ids.make("event"), (id) =>
        new SubscriptionEvent({
          id,
          type,
          partnerId: subscription.partnerId,
          mode: subscription.mode,
          subscription,
          charge: charge ?? null,
          createdAt: Math.floor(millis / 1000)
        })))
    const committed = yield* repo.commit({ subscription, charge, events })
    return { subscription, committed }
  })
