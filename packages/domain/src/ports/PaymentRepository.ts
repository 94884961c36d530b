import { Context, type Effect, type Option } from "effect"
import type { PaymentId } from "../ids/Ids.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Payment } from "../payment/Payment.ts"

/**
 * Payment persistence. Each method is one atomic unit: the payment row and its outbox events
 * commit together or not at all. Infrastructure failures are defects (they surface as
 * `internal_error`), never domain errors.
 */
export class PaymentRepository extends Context.Service<PaymentRepository, {
  /** Stores a new payment and its events. */
  readonly insert: (payment: Payment, events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void>
  /** The payment with this id, if any. */
  readonly findById: (id: PaymentId) => Effect.Effect<Option.Option<Payment>>
  /**
   * Compare-and-set: stores `next` only if the stored version is `next.stateVersion - 1`, with
   * its events. Answers `false` when another writer got there first (nothing is written then).
   */
  readonly update: (next: Payment, events: ReadonlyArray<OutboxEvent>) => Effect.Effect<boolean>
}>()("@paygate/domain/PaymentRepository") {}
