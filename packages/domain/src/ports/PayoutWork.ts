import { Context, type Effect } from "effect"
import type { PayoutKey } from "./PayoutRepository.ts"

/**
 * The payout queue: pending payouts whose chain work (send, then watch) is due. Claims are
 * leases, like `ChainWork`'s: any number of workers share the queue, and a payout a crashed
 * worker held comes back when its lease ends.
 */
export class PayoutWork extends Context.Service<PayoutWork, {
  /** Leases up to `limit` due pending payouts no live lease holds, for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<PayoutKey>>
  /** Ends the lease on `key`; its next check is due `afterMillis` from now. */
  readonly release: (key: PayoutKey, afterMillis: number) => Effect.Effect<void>
}>()("@paygate/domain/PayoutWork") {}
