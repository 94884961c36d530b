import { Effect, Layer, Option } from "effect"
import type { PlanId } from "../ids/Ids.ts"
import { compareCreation, isAfterCursor } from "../paging/Page.ts"
import { PlanRepository } from "../ports/PlanRepository.ts"
import { Plan } from "../subscription/Plan.ts"

/** The state behind the in-memory plan repository, exposed so tests can inspect it. */
export interface MemoryPlans {
  readonly plans: Map<PlanId, Plan>
}

/** A fresh, empty plan store. */
export const makeMemoryPlans = (): MemoryPlans => ({ plans: new Map() })

/**
 * In-memory {@link PlanRepository} for unit tests: lists are newest first, paged by cursor. Unlike
 * the SQL store it knows no merchants, so it takes a plan of any merchant.
 */
export const layerMemoryPlans = (store: MemoryPlans = makeMemoryPlans()): Layer.Layer<PlanRepository> =>
  Layer.succeed(PlanRepository, PlanRepository.of({
    insert: (plan) =>
      Effect.suspend(() => {
        if (store.plans.has(plan.id)) return Effect.die(new Error(`duplicate plan ${plan.id}`))
        store.plans.set(plan.id, plan)
        return Effect.void
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(store.plans.get(id))),
    list: (q) =>
      Effect.sync(() =>
        [...store.plans.values()]
          .filter((p) =>
            p.partnerId === q.partnerId && p.mode === q.mode &&
            (q.merchantId === undefined || p.merchantId === q.merchantId) &&
            isAfterCursor(p, q.after, "desc")
          )
          .sort((a, b) => compareCreation(b, a))
          .slice(0, q.limit)
      ),
    setActive: (id, active, updatedAt) =>
      Effect.sync(() =>
        Option.map(Option.fromNullishOr(store.plans.get(id)), (stored) => {
          const plan = new Plan({ ...stored, active, updatedAt })
          store.plans.set(id, plan)
          return plan
        })
      )
  }))
