import { Context, type Effect, type Option } from "effect"
import type { MerchantId, PartnerId, PlanId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import type { Plan } from "../subscription/Plan.ts"

/** Which plans a list covers, newest first (`createdAt`, then `id`, descending). */
export interface PlanQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly merchantId?: MerchantId | undefined
  readonly after: Cursor | null
  readonly limit: number
}

/** Subscription plans. A plan's terms never change: only whether it takes new subscribers. */
export class PlanRepository extends Context.Service<PlanRepository, {
  readonly insert: (plan: Plan) => Effect.Effect<void>
  readonly findById: (id: PlanId) => Effect.Effect<Option.Option<Plan>>
  readonly list: (query: PlanQuery) => Effect.Effect<ReadonlyArray<Plan>>
  /** Sets whether the plan takes new subscribers; answers the plan after, or none when there is no such plan. */
  readonly setActive: (id: PlanId, active: boolean, updatedAt: number) => Effect.Effect<Option.Option<Plan>>
}>()("@paygate/domain/PlanRepository") {}
