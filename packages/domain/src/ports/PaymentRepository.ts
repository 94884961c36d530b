import type { GasPaid } from "../gas/GasPaid.ts"
import { Context, type Effect, type Option, Schema } from "effect"
import type { MerchantId, PartnerId, PaymentId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Mode, Payment } from "../payment/Payment.ts"
import type { PaymentStatus } from "../payment/PaymentStatus.ts"

/** Which payments a list covers (API rules §11 filters). */
export interface PaymentQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly merchantId?: MerchantId | undefined
  /** Stored statuses to include; empty or unset means all. */
  readonly statuses?: ReadonlyArray<PaymentStatus> | undefined
  readonly referenceId?: string | undefined
  /** Only payments opened from this payment link. */
  readonly linkId?: string | undefined
  /** Creation time bounds, Unix milliseconds, inclusive start and exclusive end. */
  readonly createdFrom?: number | undefined
  readonly createdBefore?: number | undefined
  /** By creation: `desc` (newest first, default) or `asc`. */
  readonly order: "asc" | "desc"
  readonly after: Cursor | null
  readonly limit: number
}

/**
 * `update` refused: another payment already committed the same EIP-3009 authorization (chain,
 * token, payer, nonce) or the same transaction. Each can pay for one payment only.
 */
export class DuplicateCommitment extends Schema.TaggedError<DuplicateCommitment>()("DuplicateCommitment", {
  message: Schema.String
}) {}

/**
 * Payment persistence. Each method is one atomic unit: the payment row and its outbox events
 * commit together or not at all. Infrastructure failures are defects (they surface as
 * `internal_error`), never domain errors.
 */
export class PaymentRepository extends Context.Service<PaymentRepository, {
  /**
   * Stores a new payment and its events. Inside `IdempotencyStore.completingWrite` the write may be
   * held back until the request's response is known, then stored with it in one atomic unit.
   */
  readonly insert: (payment: Payment, events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void>
  /** The payment with this id, if any. */
  readonly findById: (id: PaymentId) => Effect.Effect<Option.Option<Payment>>
  /**
   * Compare-and-set: stores `next` only if the stored version is `next.stateVersion - 1`, with
   * its events. Answers `false` when another writer got there first (nothing is written then).
   * Fails with {@link DuplicateCommitment} (writing nothing) when `next.commitment` holds an
   * authorization or transaction another payment already holds. `gas`, what the service paid for
   * the transaction whose receipt the change observes, is recorded with it (once per transaction).
   */
  readonly update: (next: Payment, events: ReadonlyArray<OutboxEvent>, gas?: GasPaid) => Effect.Effect<boolean, DuplicateCommitment>
  /** Payments matching the query, in the requested creation order. */
  readonly list: (query: PaymentQuery) => Effect.Effect<ReadonlyArray<Payment>>
}>()("@paygate/domain/PaymentRepository") {}
