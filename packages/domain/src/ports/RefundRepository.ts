import { Context, type Effect, type Option } from "effect"
import type { AlreadyRefunded, InvalidState } from "../errors/ApiErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Payout } from "../payout/Payout.ts"
import type { Refund } from "../refund/Refund.ts"

/** Refund persistence; one refund per payment, enforced by the store (`AlreadyRefunded`). */
export class RefundRepository extends Context.Service<RefundRepository, {
  /**
   * Stores the refund with the payouts that execute it (one per sender), atomically. A pending settlement of the
   * payment whose transfer is not signed yet is withdrawn (a refunded payment is not settled); a
   * settlement signed, sent or completed fails it with `InvalidState` (the funds have left).
   */
  readonly insert: (refund: Refund, payouts: ReadonlyArray<Payout>) => Effect.Effect<void, AlreadyRefunded | InvalidState>
  readonly findByPayment: (paymentId: PaymentId) => Effect.Effect<Option.Option<Refund>>
}>()("@paygate/domain/RefundRepository") {}
