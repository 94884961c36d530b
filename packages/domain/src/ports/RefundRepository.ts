import { Context, type Effect, type Option } from "effect"
import type { AlreadyRefunded } from "../errors/ApiErrors.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Refund } from "../refund/Refund.ts"

/** Refund persistence; one refund per payment, enforced by the store (`AlreadyRefunded`). */
export class RefundRepository extends Context.Service<RefundRepository, {
  readonly insert: (refund: Refund) => Effect.Effect<void, AlreadyRefunded>
  readonly findByPayment: (paymentId: PaymentId) => Effect.Effect<Option.Option<Refund>>
}>()("@paygate/domain/RefundRepository") {}
