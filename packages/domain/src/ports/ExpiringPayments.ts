import { Context, type Effect } from "effect"
import type { PaymentId } from "../ids/Ids.ts"

/** Finds payments the worker must expire: still `requires_action` with `expiresAt` reached. */
export class ExpiringPayments extends Context.Service<ExpiringPayments, {
  /** Up to `limit` such payments at `nowSeconds` (Unix seconds), earliest expiry first. */
  readonly due: (nowSeconds: number, limit: number) => Effect.Effect<ReadonlyArray<PaymentId>>
}>()("@paygate/domain/ExpiringPayments") {}
