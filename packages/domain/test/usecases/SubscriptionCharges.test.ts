import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { SubscriptionId } from "../../src/ids/Ids.ts"
import { SubscriptionRepository } from "../../src/ports/SubscriptionRepository.ts"
import { Subscription } from "../../src/subscription/Subscription.ts"
import type { SubscriptionEventType } from "../../src/subscription/SubscriptionEvent.ts"
import type { SubscriptionTerms } from "../../src/subscription/SubscriptionTerms.ts"
import { layerMemorySubscriptionChain, makeMemorySubscriptionChain, type MemorySubscriptionChainState } from "../../src/testing/MemorySubscriptionChain.ts"
import { layerMemorySubscriptions, makeMemorySubscriptions, type MemorySubscriptions } from "../../src/testing/MemorySubscriptionRepository.ts"
import { subscriptionFixture } from "../../src/testing/SubscriptionFixtures.ts"
import { seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { SubscriptionCharges } from "../../src/usecases/SubscriptionCharges.ts"

const day = 86_400
const month = 30 * day
const t0 = 1_800_000_000
const fee = 10_000_000n
const payer = "eip155:1:0x00000000000000000000000000000000000000a1"
const shop = "eip155:1:0x00000000000000000000000000000000000000b2"

const subscription = (terms: Partial<SubscriptionTerms> = {}) =>
  subscriptionFixture({}, { payer, receiver: shop, asset: "eip155:1/erc20:0x00000000000000000000000000000000000000c3", amountPerPeriod: fee, periodSeconds: month, start: t0, ...terms })

interface World {
  readonly store: MemorySubscriptions
  readonly chain: MemorySubscriptionChainState
}

const worldLayer = (world: World) =>
  SubscriptionCharges.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(layerMemorySubscriptions(world.store), layerMemorySubscriptionChain(world.chain))),
    Layer.provide(IdGenerator.layer),
    Layer.provide(seededSecureRandom(11))
  )

/** Runs `body` in a fresh world holding `start`, the clock at `t0`. */
const inWorld = <A, E>(
  start: Subscription,
  body: (world: World) => Effect.Effect<A, E, SubscriptionCharges | SubscriptionRepository>
) => {
  const world: World = { store: makeMemorySubscriptions(), chain: makeMemorySubscriptionChain() }
  world.store.subscriptions.set(start.id, start)
  return Effect.gen(function*() {
    yield* TestClock.setTime(t0 * 1000)
    return yield* body(world)
  }).pipe(Effect.provide(worldLayer(world)))
}

/**
 * The worker until `seconds`: every due subscription claimed and advanced, the clock moved to the
 * next look; `twice` has two workers look at each one at once.
 */
const runUntil = (world: World, seconds: number, twice = false) =>
  Effect.gen(function*() {
    const repo = yield* SubscriptionRepository
    const charges = yield* SubscriptionCharges
    for (let round = 0; round < 10_000; round++) {
      const due = yield* repo.claim(10, 60_000)
      for (const id of due) {
        yield* twice ? Effect.all([charges.advance(id), charges.advance(id)], { concurrency: 2 }) : charges.advance(id)
        yield* repo.release(id, 0)
      }
      if (due.length > 0) continue
      const now = yield* Clock.currentTimeMillis
      const looks = [...world.store.subscriptions.values()]
        .filter((s) => !((s.status === "ended" || s.status === "cancelled") && s.closedOnChain))
        .map((s) => Math.max(s.nextCheckAt, now + 1))
      const next = Math.min(...looks)
      if (!Number.isFinite(next) || next > seconds * 1000) return yield* TestClock.setTime(Math.max(now, seconds * 1000))
      yield* TestClock.setTime(next)
    }
    return yield* Effect.die(new Error("the worker never settled"))
  })

const eventTypes = (world: World): ReadonlyArray<SubscriptionEventType> => world.store.events.map((e) => e.type)
const count = (world: World, type: SubscriptionEventType) => eventTypes(world).filter((t) => t === type).length
const latest = (world: World) => world.store.subscriptions.get("sub_1" as SubscriptionId)!
const chargesOf = (world: World) => [...world.store.charges.values()].sort((a, b) => a.periodIndex - b.periodIndex)
const fund = (world: World, amount: bigint) => world.chain.balances.set(payer, amount)

describe("SubscriptionCharges", () => {
  it.effect("a year of monthly charges: each period once, then the subscription ends completed", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        yield* runUntil(world, t0 + 400 * day)
        assert.strictEqual(latest(world).status, "ended")
        assert.strictEqual(latest(world).endedReason, "completed")
        assert.deepStrictEqual(chargesOf(world).map((c) => [c.periodIndex, c.status]), Array.from({ length: 12 }, (_, i) => [i, "succeeded"]))
        assert.strictEqual(world.chain.balances.get(shop), 12n * fee)
        assert.deepStrictEqual(
          [count(world, "subscription.activated"), count(world, "subscription.charged"), count(world, "subscription.ended")],
          [1, 12, 1]
        )
        // Each charge on its period's first look: nothing retried, nothing failed.
        assert.strictEqual(count(world, "subscription.charge_failed"), 0)
      })))

  it.effect("a subscription replaced from a period on charges the periods before it, then ends replaced and is closed in the contract", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        yield* runUntil(world, t0 + 10 * day)
        const repo = yield* SubscriptionRepository
        const current = latest(world)
        yield* repo.commit({ subscription: new Subscription({ ...current, replacedBy: "sub_2" as SubscriptionId, endPeriod: 2, version: current.version + 1 }) })
        yield* runUntil(world, t0 + 200 * day)
        assert.strictEqual(latest(world).status, "ended")
        assert.strictEqual(latest(world).endedReason, "replaced")
        assert.isTrue(latest(world).closedOnChain)
        assert.deepStrictEqual(chargesOf(world).map((c) => [c.periodIndex, c.status]), [[0, "succeeded"], [1, "succeeded"]])
        assert.strictEqual(world.chain.balances.get(shop), 2n * fee)
        assert.isTrue(world.chain.held.get(latest(world).terms.salt)!.cancelled)
        assert.deepStrictEqual(eventTypes(world).slice(-1), ["subscription.ended"])
      })))

  it.effect("paused, no period is charged; resumed, the periods that began meanwhile are skipped and charging goes on", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        yield* runUntil(world, t0 + 10 * day)
        const repo = yield* SubscriptionRepository
        const set = (patch: Partial<Subscription>) => {
          const current = latest(world)
          return repo.commit({ subscription: new Subscription({ ...current, ...patch, version: current.version + 1 }) })
        }
        yield* set({ status: "paused", nextCheckAt: (t0 + 10 * day) * 1000 })
        yield* runUntil(world, t0 + 100 * day)
        assert.strictEqual(latest(world).status, "paused")
        assert.deepStrictEqual(chargesOf(world).map((c) => [c.periodIndex, c.status]), [[0, "succeeded"]])
        // Resumed 100 days in (period 3 runs): periods 1 to 3 are skipped, period 4 is charged when it begins.
        yield* set({ status: "active", skipUntil: 4, nextCheckAt: (t0 + 100 * day) * 1000 })
        yield* runUntil(world, t0 + 125 * day)
        assert.deepStrictEqual(chargesOf(world).map((c) => [c.periodIndex, c.status]), [[0, "succeeded"], [1, "skipped"], [2, "skipped"], [3, "skipped"], [4, "succeeded"]])
        assert.strictEqual(world.chain.balances.get(shop), 2n * fee)
        assert.strictEqual(latest(world).status, "active")
        assert.strictEqual(count(world, "subscription.charge_failed"), 0)
      })))

  it.effect("a payer short of funds is retried 1 and 3 days into the period, and charged once topped up", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, fee)
        yield* runUntil(world, t0 + month + 2 * day)
        assert.strictEqual(latest(world).status, "past_due")
        assert.strictEqual(count(world, "subscription.charge_failed"), 2)
        const [, second] = chargesOf(world)
        assert.strictEqual(second!.failedAttempts, 2)
        assert.strictEqual(second!.nextAttemptAt, (t0 + month + 3 * day) * 1000)
        fund(world, fee)
        yield* runUntil(world, t0 + month + 4 * day)
        assert.strictEqual(latest(world).status, "active")
        assert.strictEqual(chargesOf(world)[1]!.status, "succeeded")
        assert.strictEqual(world.chain.balances.get(shop), 2n * fee)
      })))

  it.effect("after the last retry the subscription ends unpaid and is cancelled in the contract too", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, fee)
        yield* runUntil(world, t0 + 2 * month)
        assert.strictEqual(latest(world).status, "ended")
        assert.strictEqual(latest(world).endedReason, "unpaid")
        assert.strictEqual(latest(world).closedOnChain, true)
        assert.deepStrictEqual(world.chain.held.get(`0x${"5a".repeat(32)}`), { cancelled: true })
        assert.strictEqual(count(world, "subscription.charge_failed"), 4)
        assert.deepStrictEqual(chargesOf(world).map((c) => c.status), ["succeeded", "failed"])
      })))

  it.effect("a payer who revokes the allowance has cancelled: no further charge, and the contract cancels it", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        yield* runUntil(world, t0 + day)
        world.chain.revoked.add(payer)
        yield* runUntil(world, t0 + 3 * month)
        assert.strictEqual(latest(world).status, "cancelled")
        assert.strictEqual(latest(world).cancelledBy, "payer")
        assert.strictEqual(latest(world).closedOnChain, true)
        assert.strictEqual(world.chain.balances.get(shop), fee)
        assert.strictEqual(count(world, "subscription.cancelled"), 1)
      })))

  it.effect("responses lost between sending and recording: the subscription is found held and no period is charged twice", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        world.chain.lostResponses = 2
        yield* runUntil(world, t0 + month + day)
        assert.strictEqual(latest(world).status, "active")
        assert.deepStrictEqual(chargesOf(world).map((c) => [c.status, c.txHash === null]), [["succeeded", true], ["succeeded", false]])
        assert.strictEqual(world.chain.balances.get(shop), 2n * fee)
        assert.strictEqual(count(world, "subscription.charged"), 2)
      })))

  it.effect("a permit the contract never took before its deadline ends the subscription", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        yield* TestClock.setTime((t0 + 901) * 1000)
        yield* runUntil(world, t0 + day)
        assert.strictEqual(latest(world).status, "ended")
        assert.strictEqual(latest(world).endedReason, "not_subscribed")
        assert.strictEqual(world.chain.held.size, 0)
      })))

  it.effect("a worker down past a period's window: that period is recorded missed and the next ones are charged", () =>
    inWorld(subscription(), (world) =>
      Effect.gen(function*() {
        fund(world, 12n * fee)
        yield* runUntil(world, t0 + day)
        yield* TestClock.setTime((t0 + 3 * month + day) * 1000)
        yield* runUntil(world, t0 + 3 * month + 2 * day)
        assert.deepStrictEqual(chargesOf(world).map((c) => c.status), ["succeeded", "failed", "succeeded", "succeeded"])
        assert.strictEqual(latest(world).status, "active")
        assert.strictEqual(world.chain.balances.get(shop), 3n * fee)
      })))

  it("under any sequence of time, funds, revocations, lost responses and racing workers: never more than a period's amount, and the books match the chain", async () => {
    const step = fc.record({
      days: fc.integer({ min: 0, max: 70 }),
      balance: fc.option(fc.bigInt({ min: 0n, max: 3n * fee }), { nil: undefined }),
      revoke: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      lost: fc.integer({ min: 0, max: 2 }),
      twice: fc.boolean()
    })
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), fc.option(fc.integer({ min: 1, max: 14 }), { nil: null }), async (steps, periods) =>
        Effect.runPromise(
          inWorld(subscription({ periods }), (world) =>
            Effect.gen(function*() {
              fund(world, fee)
              let at = t0
              for (const s of steps) {
                if (s.balance !== undefined) fund(world, s.balance)
                if (s.revoke) world.chain.revoked.add(payer)
                world.chain.lostResponses = s.lost
                at += s.days * day
                yield* runUntil(world, at, s.twice)
              }
              // A charge sent at the last look (or whose response was lost) is still being followed: the
              // worker gets two more minutes, past its back-off, in which no period begins (they begin on
              // whole days from the start) and no retry falls due.
              world.chain.lostResponses = 0
              yield* runUntil(world, at + 120)
              const charges = chargesOf(world)
              for (const [key, charged] of world.chain.charged) {
                assert.isTrue(charged <= fee, `${key} charged ${charged}`)
                const index = Number(key.split("/")[1])
                assert.strictEqual(charges.find((c) => c.periodIndex === index)?.status, "succeeded", `period ${index} charged on chain`)
              }
              const succeeded = charges.filter((c) => c.status === "succeeded")
              for (const c of succeeded) assert.strictEqual(world.chain.charged.get(`0x${"5a".repeat(32)}/${c.periodIndex}`), fee)
              assert.strictEqual(count(world, "subscription.charged"), succeeded.length)
              assert.strictEqual(world.chain.balances.get(shop) ?? 0n, BigInt(succeeded.length) * fee)
              if (periods !== null) assert.isAtMost(succeeded.length, periods)
            })).pipe(Effect.provide(TestClock.layer()))
        )
      ),
      { numRuns: 60 }
    )
  })
})
