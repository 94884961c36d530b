import { Context, type Effect } from "effect"
import type { PaymentId } from "../ids/Ids.ts"

/**
 * The worker's queue of held payments: `authorized` payments whose escrow work (a capture or void to
 * send or follow, the capture deadline, a buyer's reclaim) is due. Claims are leases, as `ChainWork`'s;
 * a change to the payment (a merchant's request) makes it due at once.
 */
export class HoldWork extends Context.Service<HoldWork, {
  /** Leases up to `limit` due `authorized` payments no live lease holds, for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<PaymentId>>
  /** Ends the lease on `id`; its next check is due `afterMillis` from now. */
  readonly release: (id: PaymentId, afterMillis: number) => Effect.Effect<void>
}>()("@paygate/domain/HoldWork") {}
