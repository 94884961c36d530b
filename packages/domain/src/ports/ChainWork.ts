import { Context, type Effect } from "effect"
import type { PaymentId } from "../ids/Ids.ts"

/**
 * The executor's queue: `processing` payments whose chain work (submit, then watch) is due. Claims
 * are leases, so any number of workers share the queue and work a crashed worker held comes back
 * when its lease ends.
 */
export class ChainWork extends Context.Service<ChainWork, {
  /** Leases up to `limit` due `processing` payments no live lease holds, for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<PaymentId>>
  /** Ends the lease on `id`; its next check is due `afterMillis` from now. */
  readonly release: (id: PaymentId, afterMillis: number) => Effect.Effect<void>
}>()("@paygate/domain/ChainWork") {}
