import { Clock, Effect, Layer, Option } from "effect"
import type { SubscriptionId } from "../ids/Ids.ts"
import { compareCreation, isAfterCursor } from "../paging/Page.ts"
import { SubscriptionRepository } from "../ports/SubscriptionRepository.ts"
import { isFinalSubscription, Subscription } from "../subscription/Subscription.ts"
import type { SubscriptionCharge } from "../subscription/SubscriptionCharge.ts"
import type { SubscriptionEvent } from "../subscription/SubscriptionEvent.ts"

/** The state behind the in-memory subscription repository, exposed so tests can inspect it. */
export interface MemorySubscriptions {
  readonly subscriptions: Map<SubscriptionId, Subscription>
  /** Keyed by {@link chargeKey}. */
  readonly charges: Map<string, SubscriptionCharge>
  /** The outbox events of the commits, in commit order. */
  readonly events: Array<SubscriptionEvent>
  /** Unix milliseconds until which a worker holds each subscription (a lease past is free). */
  readonly leases: Map<SubscriptionId, number>
}

/** A fresh, empty subscription store. */
export const makeMemorySubscriptions = (): MemorySubscriptions => ({
  subscriptions: new Map(),
  charges: new Map(),
  events: [],
  leases: new Map()
})

/** The key of a period's charge in {@link MemorySubscriptions.charges}. */
export const chargeKey = (id: SubscriptionId, periodIndex: number): string => `${id}#${periodIndex}`

/**
 * In-memory {@link SubscriptionRepository} for unit tests: each method runs synchronously, so a
 * commit (subscription, charge and events) is checked whole before anything is written, like the
 * SQL store's transaction. "Now" for claims and releases is the `Clock`.
 */
export const layerMemorySubscriptions = (
  store: MemorySubscriptions = makeMemorySubscriptions()
): Layer.Layer<SubscriptionRepository> =>
  Layer.succeed(SubscriptionRepository, SubscriptionRepository.of({
    insert: (subscription) =>
      Effect.suspend(() => {
        if (store.subscriptions.has(subscription.id)) return Effect.succeed(false)
        store.subscriptions.set(subscription.id, subscription)
        return Effect.succeed(true)
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(store.subscriptions.get(id))),
    list: (q) =>
      Effect.sync(() =>
        [...store.subscriptions.values()]
          .filter((s) =>
            s.partnerId === q.partnerId && s.mode === q.mode &&
            (q.merchantId === undefined || s.merchantId === q.merchantId) &&
            (q.planId === undefined || s.planId === q.planId) &&
            isAfterCursor(s, q.after, "desc")
          )
          .sort((a, b) => compareCreation(b, a))
          .slice(0, q.limit)
      ),
    charges: (id) =>
      Effect.sync(() => [...store.charges.values()].filter((c) => c.subscriptionId === id).sort((a, b) => a.periodIndex - b.periodIndex)),
    commit: ({ charge, created, events, subscription }) =>
      Effect.sync(() => {
        if (store.subscriptions.get(subscription.id)?.version !== subscription.version - 1) return false
        if (charge !== undefined) {
          const stored = store.charges.get(chargeKey(charge.subscriptionId, charge.periodIndex))
          const fits = charge.version === 1 ? stored === undefined : stored?.version === charge.version - 1
          if (!fits) return false
          store.charges.set(chargeKey(charge.subscriptionId, charge.periodIndex), charge)
        }
        if (created !== undefined && !store.subscriptions.has(created.id)) store.subscriptions.set(created.id, created)
        store.subscriptions.set(subscription.id, subscription)
        store.events.push(...(events ?? []))
        return true
      }),
    claim: (limit, leaseMillis) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const due = [...store.subscriptions.values()]
          .filter((s) => (!isFinalSubscription(s.status) || !s.closedOnChain) && s.nextCheckAt <= now && (store.leases.get(s.id) ?? 0) <= now)
          .sort((a, b) => a.nextCheckAt - b.nextCheckAt)
          .slice(0, Math.max(0, limit))
        for (const s of due) store.leases.set(s.id, now + leaseMillis)
        return due.map((s) => s.id)
      }),
    // The later check is written in place, as the SQL store does: it is the queue's, so the version stays.
    release: (id, afterMillis) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        store.leases.delete(id)
        const stored = store.subscriptions.get(id)
        if (stored !== undefined && stored.nextCheckAt < now + afterMillis) {
          store.subscriptions.set(id, new Subscription({ ...stored, nextCheckAt: now + afterMillis }))
        }
      })
  }))
