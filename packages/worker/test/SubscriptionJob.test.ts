/**
 * The subscription job over the domain's in-memory subscriptions and contract, on the test clock:
 * it charges a due subscription's first period (its events written), a defect advancing one does
 * not bring it straight back, and stopping the job hands what it holds back at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { IdGenerator, periodStart, type SubscriptionChain, SubscriptionCharges, SubscriptionRepository } from "@paygate/domain"
import {
  layerMemorySubscriptionChain,
  layerMemorySubscriptions,
  makeMemorySubscriptionChain,
  makeMemorySubscriptions,
  type MemorySubscriptions,
  seededSecureRandom,
  subscriptionFixture
} from "@paygate/domain/testing"
import { Deferred, Effect, Exit, Layer, Logger, Scope } from "effect"
import { TestClock } from "effect/testing"
import { defaultLeasedWorkSettings } from "../src/LeasedWork.ts"
import { SubscriptionJob, SubscriptionSettings } from "../src/Subscriptions.ts"

const t0 = 1_800_000_000
const subscription = subscriptionFixture()
const settings = { ...defaultLeasedWorkSettings, pollIntervalMs: 100, unknownRecheckMs: 5_000 }

/** A store holding the fixture's subscription, due now. */
const storeWithSubscription = (): MemorySubscriptions => {
  const store = makeMemorySubscriptions()
  store.subscriptions.set(subscription.id, subscription)
  return store
}

/** The job over `store`, a contract on Base, and `charges` (given the same ports). */
const jobOver = (
  store: MemorySubscriptions,
  charges: Layer.Layer<SubscriptionCharges, never, SubscriptionRepository | SubscriptionChain | IdGenerator>,
  chain = makeMemorySubscriptionChain()
) =>
  SubscriptionJob.pipe(
    Layer.provide(charges),
    Layer.provide(Layer.mergeAll(layerMemorySubscriptions(store), layerMemorySubscriptionChain(chain), Layer.succeed(SubscriptionSettings, settings))),
    Layer.provide(IdGenerator.layer),
    Layer.provide(seededSecureRandom(7))
  )

/** A `SubscriptionCharges` whose every look runs `look`. */
const chargesDoing = (look: Effect.Effect<never>) => Layer.succeed(SubscriptionCharges, SubscriptionCharges.of({ advance: () => look }))

describe("SubscriptionJob", () => {
  it.effect("charges a due subscription's first period, its events written, and looks again when the next begins", () =>
    Effect.gen(function*() {
      const store = storeWithSubscription()
      const chain = makeMemorySubscriptionChain()
      chain.balances.set(subscription.terms.payer, subscription.terms.amountPerPeriod)
      yield* TestClock.setTime(t0 * 1000)
      yield* Layer.build(jobOver(store, SubscriptionCharges.layer, chain))
      // The permit's transaction and the charge's are each followed two seconds later (`ChargePolicy`).
      yield* TestClock.adjust(10_000)
      const charged = store.subscriptions.get(subscription.id)!
      assert.strictEqual(charged.status, "active")
      assert.deepStrictEqual([...store.charges.values()].map((c) => [c.periodIndex, c.status]), [[0, "succeeded"]])
      assert.deepStrictEqual(store.events.map((e) => e.type), ["subscription.activated", "subscription.charged"])
      assert.strictEqual(chain.balances.get(subscription.terms.receiver), subscription.terms.amountPerPeriod)
      assert.strictEqual(charged.nextCheckAt, periodStart(subscription.terms, 1) * 1000)
    }).pipe(Effect.scoped))

  it.effect("a defect advancing a subscription is logged, and the subscription waits unknownRecheckMs before its next look", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      let looks = 0
      const failing = chargesDoing(Effect.suspend(() => {
        looks++
        return Effect.die(new Error("a bug"))
      }))
      yield* TestClock.setTime(t0 * 1000)
      yield* Layer.build(jobOver(storeWithSubscription(), failing)).pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logged.push(String(Array.isArray(message) ? message[0] : message)))]))
      )
      yield* TestClock.adjust(settings.unknownRecheckMs - settings.pollIntervalMs)
      assert.strictEqual(looks, 1)
      assert.include(logged, `worker subscriptions: advancing ${subscription.id} failed`)
      yield* TestClock.adjust(2 * settings.pollIntervalMs)
      assert.strictEqual(looks, 2)
    }).pipe(Effect.scoped))

  it.effect("stopping the job hands the subscriptions it holds back at once, not when their lease ends", () => {
    const store = storeWithSubscription()
    return Effect.gen(function*() {
      const looking = yield* Deferred.make<void>()
      const scope = yield* Scope.make()
      yield* TestClock.setTime(t0 * 1000)
      yield* Layer.buildWithScope(jobOver(store, chargesDoing(Effect.andThen(Deferred.succeed(looking, undefined), Effect.never))), scope)
      yield* Deferred.await(looking)
      const repo = yield* SubscriptionRepository
      assert.deepStrictEqual(yield* repo.claim(10, 60_000), [])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* repo.claim(10, 60_000), [subscription.id])
    }).pipe(Effect.provide(layerMemorySubscriptions(store)))
  })
})
