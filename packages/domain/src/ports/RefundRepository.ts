import { Context, type Effect, type Option } from "effect"
import type { InvalidState } from "../errors/DomainErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Payout } from "../payout/Payout.ts"
import type { Refund } from "../refund/Refund.ts"
import type { ClaimLink } from "../refund/RefundClaim.ts"
import type { PriorRefunds } from "../refund/RefundPlan.ts"

/** A refund and the payouts that execute it (one per sender). */
export interface PlannedRefund {
  readonly refund: Refund
  readonly payouts: ReadonlyArray<Payout>
  /** A refund to an address the buyer chooses: its first link (its payouts come with the claim). */
  readonly claim?: ClaimLink | undefined
}

/** Refund persistence; a payment may have several refunds, planned one at a time by the store. */
export class RefundRepository extends Context.Service<RefundRepository, {
  /**
   * Stores the refund `plan` makes of the payment's refunds so far, with its payouts, atomically.
   * The payment is locked while `plan` runs and its response is written, so concurrent refunds of one
   * payment are planned one after the other, each seeing those before it. A settlement of the
   * payment whose transfer is not signed yet (or that failed) is withdrawn, and what the refund
   * leaves is settled anew (`PayoutRepository.decide`); a settlement signed, sent or completed fails
   * it with `InvalidState` (the funds have left).
   */
  readonly insert: <E>(
    paymentId: PaymentId,
    plan: (prior: PriorRefunds) => Effect.Effect<PlannedRefund, E>
  ) => Effect.Effect<Refund, E | InvalidState>
  /** A payment's refunds, oldest first. */
  readonly listByPayment: (paymentId: PaymentId) => Effect.Effect<ReadonlyArray<Refund>>
  /** A payment's latest refund. */
  readonly findByPayment: (paymentId: PaymentId) => Effect.Effect<Option.Option<Refund>>
}>()("@paygate/domain/RefundRepository") {}
