import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import type { EventId, MerchantId, PartnerId, PlanId, SubscriptionId } from "../../src/ids/Ids.ts"
import type { Cursor } from "../../src/paging/Page.ts"
import { SubscriptionRepository } from "../../src/ports/SubscriptionRepository.ts"
import { Subscription } from "../../src/subscription/Subscription.ts"
import { firstCharge, SubscriptionCharge } from "../../src/subscription/SubscriptionCharge.ts"
import { SubscriptionEvent } from "../../src/subscription/SubscriptionEvent.ts"
import { layerMemorySubscriptions, makeMemorySubscriptions } from "../../src/testing/MemorySubscriptionRepository.ts"
import { subscriptionFixture } from "../../src/testing/SubscriptionFixtures.ts"

const t0 = 1_800_000_000_000
let counter = 0

const subscription = (overrides: Partial<ConstructorParameters<typeof Subscription>[0]> = {}) =>
  subscriptionFixture(
    { id: `sub_${++counter}` as SubscriptionId, status: "active", nextCheckAt: t0, createdAt: t0, updatedAt: t0, ...overrides },
    { amountPerPeriod: 2n ** 100n, periods: null }
  )

const next = (s: Subscription) => new Subscription({ ...s, version: s.version + 1 })

const charge = (s: Subscription, periodIndex: number, version = 1) =>
  new SubscriptionCharge({ ...firstCharge(s, periodIndex, t0), version })


describe("layerMemorySubscriptions", () => {
  it.effect("commits by compare-and-set, whole or not at all", () => {
    const store = makeMemorySubscriptions()
    return Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const s1 = subscription()
      yield* repo.insert(s1)
      assert.deepStrictEqual(yield* repo.findById(s1.id), Option.some(s1))
      // Stale: nothing written.
      assert.isFalse(yield* repo.commit({ subscription: next(next(s1)), charge: charge(s1, 0) }))
      assert.deepStrictEqual(yield* repo.charges(s1.id), [])
      const s2 = next(s1)
      assert.isTrue(yield* repo.commit({ subscription: s2, charge: charge(s1, 1) }))
      const s3 = next(s2)
      assert.isTrue(yield* repo.commit({ subscription: s3, charge: charge(s1, 0) }))
      assert.deepStrictEqual((yield* repo.charges(s1.id)).map((c) => c.periodIndex), [0, 1])
      // A second charge for a period, or a stale charge update: the subscription stays.
      assert.isFalse(yield* repo.commit({ subscription: next(s3), charge: charge(s1, 0) }))
      assert.isFalse(yield* repo.commit({ subscription: next(s3), charge: charge(s1, 0, 3) }))
      assert.deepStrictEqual(yield* repo.findById(s1.id), Option.some(s3))
      assert.deepStrictEqual(store.events, [])
      const s4 = next(s3)
      const charged = charge(s1, 0, 2)
      const event = new SubscriptionEvent({
        id: "evt_1" as EventId,
        type: "subscription.charged",
        partnerId: s4.partnerId,
        mode: s4.mode,
        subscription: s4,
        charge: charged,
        createdAt: t0 / 1000
      })
      assert.isTrue(yield* repo.commit({ subscription: s4, charge: charged, events: [event] }))
      assert.deepStrictEqual((yield* repo.charges(s1.id)).map((c) => c.version), [2, 1])
      assert.deepStrictEqual(store.events, [event])
    }).pipe(Effect.provide(layerMemorySubscriptions(store)))
  })

  it.effect("claims due subscriptions not leased, and not final unless the contract still holds them open, by the clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const repo = yield* SubscriptionRepository
      const due = subscription()
      const later = subscription({ nextCheckAt: t0 + 1 })
      const ended = subscription({ status: "ended", endedReason: "completed", closedOnChain: true })
      const cancelled = subscription({ status: "cancelled", cancelledBy: "payer", closedOnChain: true })
      const closing = subscription({ status: "cancelled", cancelledBy: "payer", nextCheckAt: t0 + 5_000 })
      for (const s of [due, later, ended, cancelled, closing]) yield* repo.insert(s)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [due.id])
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [])
      yield* repo.release(due.id, 0)
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* repo.claim(1, 1_000), [due.id])
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [later.id])
      yield* TestClock.adjust(1_000)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [due.id, later.id])
      yield* TestClock.adjust(5_000)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [due.id, later.id, closing.id])
    }).pipe(Effect.provide(layerMemorySubscriptions())))

  it.effect("a release ends the lease and puts the next check no sooner than the delay: a later one stays", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(t0)
      const repo = yield* SubscriptionRepository
      const due = subscription()
      const later = subscription({ nextCheckAt: t0 + 60_000 })
      for (const s of [due, later]) yield* repo.insert(s)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [due.id])
      yield* repo.release(due.id, 5_000)
      yield* repo.release(later.id, 5_000)
      assert.strictEqual(Option.getOrThrow(yield* repo.findById(due.id)).nextCheckAt, t0 + 5_000)
      assert.deepStrictEqual(yield* repo.findById(later.id), Option.some(later))
      yield* TestClock.adjust(4_999)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* repo.claim(10, 1_000), [due.id])
    }).pipe(Effect.provide(layerMemorySubscriptions())))

  it.effect("lists a partner's subscriptions in one mode newest first, by merchant and plan if asked, paged by cursor", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const shopA = "mer_a" as MerchantId
      const planA = "pln_a" as PlanId
      const planB = "pln_b" as PlanId
      const a1 = subscription({ id: "sub_a1" as SubscriptionId, merchantId: shopA, planId: planA, createdAt: t0 })
      const a2 = subscription({ id: "sub_a2" as SubscriptionId, merchantId: shopA, planId: planB, createdAt: t0 + 1 })
      // Created in the same millisecond as a2: the greater id comes first.
      const b1 = subscription({ id: "sub_b1" as SubscriptionId, planId: planA, createdAt: t0 + 1 })
      const a3 = subscription({ id: "sub_a3" as SubscriptionId, merchantId: shopA, planId: planA, createdAt: t0 + 2 })
      const live = subscription({ merchantId: shopA, mode: "live", createdAt: t0 + 3 })
      const stranger = subscription({ partnerId: "ptn_other" as PartnerId, createdAt: t0 + 3 })
      for (const s of [a1, a2, b1, a3, live, stranger]) yield* repo.insert(s)
      const base = { partnerId: a1.partnerId, mode: "sandbox", after: null, limit: 10 } as const
      const ids = (subscriptions: ReadonlyArray<Subscription>) => subscriptions.map((s) => s.id)
      assert.deepStrictEqual(ids(yield* repo.list(base)), [a3.id, b1.id, a2.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, merchantId: shopA })), [a3.id, a2.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, planId: planA })), [a3.id, b1.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, merchantId: shopA, planId: planA })), [a3.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, mode: "live" })), [live.id])
      const seen: Array<SubscriptionId> = []
      let after: Cursor | null = null
      for (let page = 0; page < 10; page++) {
        const rows: ReadonlyArray<Subscription> = yield* repo.list({ ...base, after, limit: 3 })
        if (rows.length === 0) break
        seen.push(...ids(rows))
        after = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id }
      }
      assert.deepStrictEqual(seen, [a3.id, b1.id, a2.id, a1.id])
    }).pipe(Effect.provide(layerMemorySubscriptions())))
})
