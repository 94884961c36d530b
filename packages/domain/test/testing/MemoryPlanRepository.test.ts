import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import type { MerchantId, PartnerId, PlanId } from "../../src/ids/Ids.ts"
import type { Cursor } from "../../src/paging/Page.ts"
import { PlanRepository } from "../../src/ports/PlanRepository.ts"
import { Plan } from "../../src/subscription/Plan.ts"
import { layerMemoryPlans, makeMemoryPlans } from "../../src/testing/MemoryPlanRepository.ts"
import { planFixture } from "../../src/testing/SubscriptionFixtures.ts"

const t0 = 1_800_000_000_000
let counter = 0

const plan = (overrides: Partial<ConstructorParameters<typeof Plan>[0]> = {}) =>
  planFixture({ id: `pln_${++counter}` as PlanId, createdAt: t0, updatedAt: t0, ...overrides })

describe("layerMemoryPlans", () => {
  it.effect("stores a plan once and finds it by id", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const p = plan({ value: 2n ** 100n, periods: null, trialSeconds: 7 * 86_400 })
      yield* repo.insert(p)
      assert.deepStrictEqual(yield* repo.findById(p.id), Option.some(p))
      assert.isTrue(Option.isNone(yield* repo.findById("pln_unknown" as PlanId)))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.insert(p))))
    }).pipe(Effect.provide(layerMemoryPlans())))

  it.effect("lists a partner's plans in one mode newest first, by merchant if asked, paged by cursor", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const shopA = "mer_a" as MerchantId
      const shopB = "mer_b" as MerchantId
      const a1 = plan({ id: "pln_a1" as PlanId, merchantId: shopA, createdAt: t0 })
      const a2 = plan({ id: "pln_a2" as PlanId, merchantId: shopA, createdAt: t0 + 1 })
      // Created in the same millisecond as a2: the greater id comes first.
      const b1 = plan({ id: "pln_b1" as PlanId, merchantId: shopB, createdAt: t0 + 1 })
      const a3 = plan({ id: "pln_a3" as PlanId, merchantId: shopA, createdAt: t0 + 2 })
      const live = plan({ merchantId: shopA, mode: "live", createdAt: t0 + 3 })
      const stranger = plan({ partnerId: "ptn_other" as PartnerId, createdAt: t0 + 3 })
      for (const p of [a1, a2, b1, a3, live, stranger]) yield* repo.insert(p)
      const base = { partnerId: a1.partnerId, mode: "sandbox", after: null, limit: 10 } as const
      const ids = (plans: ReadonlyArray<Plan>) => plans.map((p) => p.id)
      assert.deepStrictEqual(ids(yield* repo.list(base)), [a3.id, b1.id, a2.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, merchantId: shopA })), [a3.id, a2.id, a1.id])
      assert.deepStrictEqual(ids(yield* repo.list({ ...base, mode: "live" })), [live.id])
      const seen: Array<PlanId> = []
      let after: Cursor | null = null
      for (let page = 0; page < 10; page++) {
        const rows: ReadonlyArray<Plan> = yield* repo.list({ ...base, after, limit: 3 })
        if (rows.length === 0) break
        seen.push(...ids(rows))
        after = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id }
      }
      assert.deepStrictEqual(seen, [a3.id, b1.id, a2.id, a1.id])
    }).pipe(Effect.provide(layerMemoryPlans())))

  it.effect("sets whether a plan takes new subscribers, its terms unchanged", () => {
    const store = makeMemoryPlans()
    return Effect.gen(function*() {
      const repo = yield* PlanRepository
      const p = plan()
      yield* repo.insert(p)
      const off = new Plan({ ...p, active: false, updatedAt: t0 + 5 })
      assert.deepStrictEqual(yield* repo.setActive(p.id, false, t0 + 5), Option.some(off))
      assert.deepStrictEqual(store.plans.get(p.id), off)
      assert.isTrue(Option.isNone(yield* repo.setActive("pln_unknown" as PlanId, true, t0)))
    }).pipe(Effect.provide(layerMemoryPlans(store)))
  })
})
