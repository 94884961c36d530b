import {
  compareCreation,
  type Cursor,
  firstCharge,
  IdGenerator,
  type Merchant,
  type Plan,
  type PlanId,
  PlanRepository,
  SignedPermit,
  Subscription,
  SubscriptionCharge,
  SubscriptionEvent,
  type SubscriptionEventType,
  type SubscriptionId,
  type SubscriptionQuery,
  SubscriptionRepository,
  SubscriptionTerms
} from "@paygate/domain"
import { subscriptionFixture } from "@paygate/domain/testing"
import { assert } from "@effect/vitest"
import { Clock, Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlPlanRepository from "../src/SqlPlanRepository.ts"
import * as SqlSubscriptionRepository from "../src/SqlSubscriptionRepository.ts"
import { type AdapterServices, adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPlan } from "./support/Fixtures.ts"

const asset = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const payer = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const receiver = "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
// Beyond 64 bits: a double or a bigint column would lose it.
const huge = 2n ** 100n + 12_345n
const past = 1_700_000_000_000
const future = 4_000_000_000_000

// A stored plan of `merchant`, else of a new partner's merchant: a subscription's plan must be stored.
const storedPlan = (merchant?: Merchant) =>
  Effect.gen(function*() {
    const plan = yield* newPlan(merchant ?? (yield* newMerchant(yield* newPartner())))
    yield* (yield* PlanRepository).insert(plan)
    return plan
  })

const newSubscription = (plan: Plan, overrides: Partial<ConstructorParameters<typeof Subscription>[0]> = {}) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return subscriptionFixture({
      id: yield* ids.make("subscription"),
      planId: plan.id,
      partnerId: plan.partnerId,
      merchantId: plan.merchantId,
      mode: plan.mode,
      permit: new SignedPermit({ signature: `0x${"ab".repeat(65)}`, sigDeadline: 1_800_003_600 }),
      nextCheckAt: past,
      createdAt: past,
      updatedAt: past,
      ...overrides
    }, { payer, receiver, asset, amountPerPeriod: huge, periods: null })
  })

// The subscription's next version, as a change would make it.
const next = (s: Subscription, overrides: Partial<ConstructorParameters<typeof Subscription>[0]> = {}) =>
  new Subscription({ ...s, updatedAt: s.updatedAt + 1, ...overrides, version: s.version + 1 })

const charge = (s: Subscription, periodIndex: number, overrides: Partial<ConstructorParameters<typeof SubscriptionCharge>[0]> = {}) =>
  new SubscriptionCharge({ ...firstCharge(s, periodIndex, past), ...overrides })


const eventOf = (type: SubscriptionEventType, s: Subscription, c: SubscriptionCharge | null) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new SubscriptionEvent({
      id: yield* ids.make("event"),
      type,
      partnerId: s.partnerId,
      mode: s.mode,
      subscription: s,
      charge: c,
      createdAt: Math.floor(s.updatedAt / 1000)
    })
  })

const outboxOf = (partnerId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly id: string; readonly type: string; readonly payment_id: string | null; readonly payload: unknown }>`
      SELECT id, type, payment_id, payload FROM outbox_events WHERE partner_id = ${partnerId} ORDER BY created_at, id`
  })

const decodeEvent = Schema.decodeUnknownEffect(Schema.toCodecJson(SubscriptionEvent))

adapterSuite("SqlSubscriptionRepository", (it, db) => {
  const test = (name: string, body: () => Effect.Effect<void, unknown, AdapterServices | SubscriptionRepository | PlanRepository>) =>
    it.effect(name, () => body().pipe(Effect.provide(Layer.mergeAll(SqlSubscriptionRepository.layer, SqlPlanRepository.layer))))

  test("stores and reads back every field exactly, nulls and bigints beyond 64 bits included", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const bare = yield* newSubscription(plan)
      const full = yield* newSubscription(plan, {
        terms: new SubscriptionTerms({ ...bare.terms, amountPerPeriod: 2n ** 159n, periods: 1200 }),
        subscribeTx: `0x${"01".repeat(32)}`,
        status: "cancelled",
        endedReason: "unpaid",
        cancelledBy: "payer",
        cancelTx: `0x${"02".repeat(32)}`,
        closedOnChain: true,
        skipUntil: 2,
        nextCheckAt: future,
        version: 7,
        updatedAt: past + 5
      })
      yield* repo.insert(bare)
      yield* repo.insert(full)
      assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(bare))
      assert.deepStrictEqual(yield* repo.findById(full.id), Option.some(full))
      // Replaced by the other, from period 3: written by a commit, read back.
      const replaced = next(bare, { replacedBy: full.id, endPeriod: 3 })
      assert.isTrue(yield* repo.commit({ subscription: replaced }))
      assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(replaced))
      // Paused, with a period skipped: the statuses the schema admits.
      const paused = next(replaced, { status: "paused" })
      assert.isTrue(yield* repo.commit({ subscription: paused, charge: charge(paused, 0, { status: "skipped" }) }))
      assert.deepStrictEqual((yield* repo.charges(bare.id)).map((c) => c.status), ["skipped"])
      // Inserting an id that exists writes nothing.
      assert.isFalse(yield* repo.insert(bare))
      // A replacement is stored with the change that names it, or not at all when the change lost its race.
      const successor = yield* newSubscription(plan)
      assert.isFalse(yield* repo.commit({ subscription: next(bare, { replacedBy: successor.id, endPeriod: 4 }), created: successor }))
      assert.isTrue(Option.isNone(yield* repo.findById(successor.id)))
      const handedOver = next(paused, { replacedBy: successor.id, endPeriod: 4 })
      assert.isTrue(yield* repo.commit({ subscription: handedOver, created: successor }))
      assert.deepStrictEqual(yield* repo.findById(successor.id), Option.some(successor))
      assert.isTrue(Option.isNone(yield* repo.findById("sub_unknown" as SubscriptionId)))
      assert.deepStrictEqual(yield* repo.charges(full.id), [])
    }))

  test("a commit whose subscription version is stale answers false and writes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const s = yield* newSubscription(plan)
      yield* repo.insert(s)
      const stale = next(next(s), { status: "active" })
      const c = charge(stale, 0)
      const event = yield* eventOf("subscription.activated", stale, c)
      assert.isFalse(yield* repo.commit({ subscription: stale, charge: c, events: [event] }))
      assert.deepStrictEqual(yield* repo.findById(s.id), Option.some(s))
      assert.deepStrictEqual(yield* repo.charges(s.id), [])
      assert.deepStrictEqual(yield* outboxOf(plan.partnerId), [])
      // Nor may a subscription never stored be committed.
      assert.isFalse(yield* repo.commit({ subscription: next(yield* newSubscription(plan)) }))
    }))

  test("a charge is inserted at version 1, then updated by compare-and-set; charges come by period", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const s1 = yield* newSubscription(plan)
      yield* repo.insert(s1)
      const s2 = next(s1, { status: "active" })
      const second = charge(s2, 1, { amount: huge + 1n })
      assert.isTrue(yield* repo.commit({ subscription: s2 }))
      const s3 = next(s2)
      assert.isTrue(yield* repo.commit({ subscription: s3, charge: second }))
      const first = charge(s3, 0)
      const s4 = next(s3)
      assert.isTrue(yield* repo.commit({ subscription: s4, charge: first }))
      assert.deepStrictEqual(yield* repo.charges(s1.id), [first, second])
      const sent = new SubscriptionCharge({ ...first, txHash: `0x${"03".repeat(32)}`, version: 2, updatedAt: past + 9 })
      const s5 = next(s4)
      assert.isTrue(yield* repo.commit({ subscription: s5, charge: sent }))
      // Another writer's update of the same charge version lost: the subscription stays as it was.
      const failed = new SubscriptionCharge({ ...first, status: "failed", failedAttempts: 1, lastError: "short of funds", version: 2 })
      assert.isFalse(yield* repo.commit({ subscription: next(s5), charge: failed }))
      assert.deepStrictEqual(yield* repo.findById(s1.id), Option.some(s5))
      assert.deepStrictEqual(yield* repo.charges(s1.id), [sent, second])
      const done = new SubscriptionCharge({ ...sent, status: "succeeded", version: 3 })
      assert.isTrue(yield* repo.commit({ subscription: next(s5), charge: done }))
      assert.deepStrictEqual(yield* repo.charges(s1.id), [done, second])
    }))

  test("a second charge for a period answers false and rolls the subscription back", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const s1 = yield* newSubscription(plan, { status: "active" })
      yield* repo.insert(s1)
      const s2 = next(s1)
      const mine = charge(s2, 0)
      assert.isTrue(yield* repo.commit({ subscription: s2, charge: mine }))
      const s3 = next(s2, { status: "past_due" })
      const twin = charge(s3, 0, { status: "failed", lastError: "again" })
      const event = yield* eventOf("subscription.charge_failed", s3, twin)
      assert.isFalse(yield* repo.commit({ subscription: s3, charge: twin, events: [event] }))
      assert.deepStrictEqual(yield* repo.findById(s1.id), Option.some(s2))
      assert.deepStrictEqual(yield* repo.charges(s1.id), [mine])
      assert.deepStrictEqual(yield* outboxOf(plan.partnerId), [])
    }))

  test("a commit's events land in the outbox, partner-level, and decode back", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const s1 = yield* newSubscription(plan, { status: "active" })
      yield* repo.insert(s1)
      const s2 = next(s1, { updatedAt: past + 2_000 })
      const c = charge(s2, 0, { status: "succeeded", txHash: `0x${"04".repeat(32)}` })
      const charged = yield* eventOf("subscription.charged", s2, c)
      const s3 = next(s2, { status: "ended", endedReason: "completed", updatedAt: past + 3_000 })
      const ended = yield* eventOf("subscription.ended", s3, null)
      assert.isTrue(yield* repo.commit({ subscription: s2, charge: c, events: [charged] }))
      assert.isTrue(yield* repo.commit({ subscription: s3, events: [ended] }))
      const rows = yield* outboxOf(plan.partnerId)
      assert.deepStrictEqual(rows.map((r) => [r.id, r.type, r.payment_id]), [
        [charged.id, "subscription.charged", null],
        [ended.id, "subscription.ended", null]
      ])
      const payload = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value)
      assert.deepStrictEqual(yield* decodeEvent(payload(rows[0]!.payload)), charged)
      assert.deepStrictEqual(yield* decodeEvent(payload(rows[1]!.payload)), ended)
    }))

  test("claims due subscriptions not leased, and not final unless the contract still holds them open; a release or a lease's end frees one", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const make = (overrides: Partial<ConstructorParameters<typeof Subscription>[0]>) =>
        Effect.tap(newSubscription(plan, overrides), (s) => repo.insert(s))
      const subscribing = yield* make({})
      const active = yield* make({ status: "active", nextCheckAt: past + 1 })
      const pastDue = yield* make({ status: "past_due", nextCheckAt: past + 2 })
      const later = yield* make({ status: "active", nextCheckAt: future })
      const cancelled = yield* make({ status: "cancelled", cancelledBy: "merchant", closedOnChain: true })
      const ended = yield* make({ status: "ended", endedReason: "completed", closedOnChain: true })
      // Cancelled here, still to be cancelled in the contract: the worker has work left.
      const closing = yield* make({ status: "cancelled", cancelledBy: "merchant" })
      const all = [subscribing, active, pastDue, later, cancelled, ended, closing].map((s) => s.id)
      const mine = (ids: ReadonlyArray<SubscriptionId>) => ids.filter((id) => all.includes(id)).sort()
      const due = [subscribing.id, active.id, pastDue.id, closing.id].sort()
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), due)
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [], "leased")
      yield* repo.release(active.id, 0)
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [active.id])
      // A worker that dies holding them: the lease ends and another claims them.
      yield* repo.release(active.id, 0)
      yield* repo.release(pastDue.id, 0)
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 1)), [active.id, pastDue.id].sort())
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [active.id, pastDue.id].sort())
      // A commit leaves the lease to its holder.
      assert.isTrue(yield* repo.commit({ subscription: next(active) }))
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [])
      assert.deepStrictEqual(yield* repo.claim(0, 60_000), [])
    }))

  test("a release puts the next check no sooner than its delay from now: a later one stays, an earlier one moves", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      const due = yield* newSubscription(plan, { status: "active" })
      const later = yield* newSubscription(plan, { status: "active", nextCheckAt: future })
      for (const s of [due, later]) yield* repo.insert(s)
      const mine = (ids: ReadonlyArray<SubscriptionId>) => ids.filter((id) => id === due.id || id === later.id)
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [due.id])
      const hour = 3_600_000
      const before = yield* Clock.currentTimeMillis
      yield* repo.release(due.id, hour)
      yield* repo.release(later.id, hour)
      const after = yield* Clock.currentTimeMillis
      const moved = Option.getOrThrow(yield* repo.findById(due.id))
      assert.isAtLeast(moved.nextCheckAt, before + hour)
      assert.isAtMost(moved.nextCheckAt, after + hour)
      // The queue's field only: the version stays, so the worker's next commit is not refused.
      assert.deepStrictEqual(moved, new Subscription({ ...due, nextCheckAt: moved.nextCheckAt }))
      assert.deepStrictEqual(yield* repo.findById(later.id), Option.some(later))
      assert.deepStrictEqual(mine(yield* repo.claim(1000, 60_000)), [])
    }))

  test("a subscription of a plan not stored is refused by the foreign key", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const orphan = yield* newSubscription(yield* storedPlan(), { planId: "pln_unknown" as PlanId })
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.insert(orphan))))
      assert.isTrue(Option.isNone(yield* repo.findById(orphan.id)))
    }))

  test("lists a partner's subscriptions in one mode newest first, by merchant and plan if asked, paged by cursor", () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const partner = yield* newPartner()
      const shopA = yield* newMerchant(partner)
      const shopB = yield* newMerchant(partner)
      const monthly = yield* storedPlan(shopA)
      const yearly = yield* storedPlan(shopA)
      const other = yield* storedPlan(shopB)
      const all: Array<Subscription> = []
      // Ties on createdAt are broken by id.
      const stamps = [[monthly, 3000], [other, 1000], [yearly, 3000], [monthly, 1000], [other, 3000], [monthly, 2000], [yearly, 1000]] as const
      for (const [plan, createdAt] of stamps) {
        const s = yield* newSubscription(plan, { createdAt, updatedAt: createdAt })
        yield* repo.insert(s)
        all.push(s)
      }
      const live = yield* newSubscription(yield* storedPlan(yield* newMerchant(partner, { mode: "live" })), { createdAt: 2000 })
      const stranger = yield* newSubscription(yield* storedPlan(), { createdAt: 2000 })
      for (const s of [live, stranger]) yield* repo.insert(s)
      const base: SubscriptionQuery = { partnerId: partner.id, mode: "sandbox", after: null, limit: 2 }
      const pages = (query: Partial<SubscriptionQuery>) =>
        Effect.gen(function*() {
          const seen: Array<SubscriptionId> = []
          let after: Cursor | null = null
          for (let page = 0; page < 10; page++) {
            const rows: ReadonlyArray<Subscription> = yield* repo.list({ ...base, ...query, after })
            if (rows.length === 0) break
            seen.push(...rows.map((s) => s.id))
            after = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id }
          }
          return seen
        })
      const newest = (keep: (s: Subscription) => boolean) => all.filter(keep).sort((a, b) => compareCreation(b, a)).map((s) => s.id)
      assert.deepStrictEqual(yield* pages({}), newest(() => true))
      assert.deepStrictEqual(yield* pages({ merchantId: shopA.id }), newest((s) => s.merchantId === shopA.id))
      assert.deepStrictEqual(yield* pages({ planId: monthly.id }), newest((s) => s.planId === monthly.id))
      assert.deepStrictEqual(yield* pages({ merchantId: shopB.id, planId: other.id }), newest((s) => s.planId === other.id))
      assert.deepStrictEqual(yield* pages({ merchantId: shopB.id, planId: monthly.id }), [])
      assert.deepStrictEqual(yield* pages({ mode: "live" }), [live.id])
      assert.deepStrictEqual((yield* repo.list({ ...base, limit: 3 })).map((s) => s.id), newest(() => true).slice(0, 3))
    }))

  test(`concurrent claims never lease a subscription twice${db.concurrentTransactions ? "" : " (one at a time here)"}`, () =>
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const plan = yield* storedPlan()
      // Earlier tests' due subscriptions are leased first, so that the claims below share only these.
      yield* repo.claim(100_000, 3_600_000)
      const ids: Array<SubscriptionId> = []
      for (let i = 0; i < 20; i++) {
        const s = yield* newSubscription(plan, { status: "active", nextCheckAt: past + i })
        yield* repo.insert(s)
        ids.push(s.id)
      }
      const claims = yield* Effect.all(Array.from({ length: 4 }, () => repo.claim(6, 60_000)), { concurrency: "unbounded" })
      const claimed = claims.flat()
      assert.strictEqual(new Set(claimed).size, claimed.length, "no subscription leased twice")
      assert.deepStrictEqual([...claimed].sort(), [...ids].sort())
    }))
})
