import {
  compareCreation,
  type Cursor,
  type Merchant,
  type MerchantId,
  Plan,
  type PlanId,
  type PlanQuery,
  PlanRepository
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import * as SqlPlanRepository from "../src/SqlPlanRepository.ts"
import { type AdapterServices, adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPlan } from "./support/Fixtures.ts"

const t0 = 1_700_000_000_000

adapterSuite("SqlPlanRepository", (it) => {
  const test = (name: string, body: () => Effect.Effect<void, unknown, AdapterServices | PlanRepository>) =>
    it.effect(name, () => body().pipe(Effect.provide(SqlPlanRepository.layer)))

  test("stores and reads back every field exactly, an open-ended term and a value beyond 64 bits included", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const fiat = yield* newPlan(merchant, { name: "Gold ✨", unit: "EUR", value: 1999n, trialSeconds: 14 * 86_400 })
      const token = yield* newPlan(merchant, { value: 2n ** 100n + 7n, periods: null, active: false, updatedAt: t0 + 5 })
      yield* repo.insert(fiat)
      yield* repo.insert(token)
      assert.deepStrictEqual(yield* repo.findById(fiat.id), Option.some(fiat))
      assert.deepStrictEqual(yield* repo.findById(token.id), Option.some(token))
      assert.isTrue(Option.isNone(yield* repo.findById("pln_unknown" as PlanId)))
    }))

  test("a plan of a merchant not stored is refused by the foreign key", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const orphan = yield* newPlan(merchant, { merchantId: "mer_unknown" as MerchantId })
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.insert(orphan))))
      assert.isTrue(Option.isNone(yield* repo.findById(orphan.id)))
    }))

  test("lists a partner's plans in one mode newest first, by merchant if asked", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const partner = yield* newPartner()
      const shopA = yield* newMerchant(partner)
      const shopB = yield* newMerchant(partner)
      const liveShop = yield* newMerchant(partner, { mode: "live" })
      const strangerShop = yield* newMerchant(yield* newPartner())
      const make = (merchant: Merchant, createdAt: number) => Effect.tap(newPlan(merchant, { createdAt }), (p) => repo.insert(p))
      const a1 = yield* make(shopA, t0)
      const b1 = yield* make(shopB, t0 + 1)
      const a2 = yield* make(shopA, t0 + 2)
      const live = yield* make(liveShop, t0 + 3)
      yield* make(strangerShop, t0 + 3)
      const base: PlanQuery = { partnerId: partner.id, mode: "sandbox", after: null, limit: 10 }
      const ids = (query: Partial<PlanQuery>) =>
        Effect.map(repo.list({ ...base, ...query }), (plans) => plans.map((p) => p.id))
      assert.deepStrictEqual(yield* ids({}), [a2.id, b1.id, a1.id])
      assert.deepStrictEqual(yield* ids({ merchantId: shopA.id }), [a2.id, a1.id])
      assert.deepStrictEqual(yield* ids({ merchantId: strangerShop.id }), [])
      assert.deepStrictEqual(yield* ids({ mode: "live" }), [live.id])
      assert.deepStrictEqual(yield* ids({ limit: 2 }), [a2.id, b1.id])
    }))

  test("pages by cursor newest first, ties on createdAt broken by id", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const all: Array<Plan> = []
      for (const createdAt of [5000, 1000, 3000, 1000, 3000, 1000, 2000, 4000, 3000]) {
        const p = yield* newPlan(merchant, { createdAt })
        yield* repo.insert(p)
        all.push(p)
      }
      const expected = [...all].sort((a, b) => compareCreation(b, a)).map((p) => p.id)
      for (const merchantId of [undefined, merchant.id]) {
        const seen: Array<PlanId> = []
        let after: Cursor | null = null
        for (let page = 0; page < 10; page++) {
          const rows: ReadonlyArray<Plan> = yield* repo.list({ partnerId: merchant.partnerId, mode: merchant.mode, merchantId, after, limit: 2 })
          if (rows.length === 0) break
          seen.push(...rows.map((p) => p.id))
          after = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id }
        }
        assert.deepStrictEqual(seen, expected, merchantId ?? "partner")
      }
    }))

  test("sets whether a plan takes new subscribers and answers it after; none for an unknown plan", () =>
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const p = yield* newPlan(merchant, { value: 2n ** 100n })
      yield* repo.insert(p)
      const off = new Plan({ ...p, active: false, updatedAt: t0 + 60_000 })
      assert.deepStrictEqual(yield* repo.setActive(p.id, false, t0 + 60_000), Option.some(off))
      assert.deepStrictEqual(yield* repo.findById(p.id), Option.some(off))
      const on = new Plan({ ...p, updatedAt: t0 + 120_000 })
      assert.deepStrictEqual(yield* repo.setActive(p.id, true, t0 + 120_000), Option.some(on))
      assert.isTrue(Option.isNone(yield* repo.setActive("pln_unknown" as PlanId, false, t0)))
    }))
})
