import { Context, type Effect, type Option } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Payment } from "../payment/Payment.ts"
import type { Payout, PayoutKind } from "../payout/Payout.ts"
import type { Refund } from "../refund/Refund.ts"
import type { PriorRefunds } from "../refund/RefundPlan.ts"

/** A payout is identified by its payment, kind and leg (a refund has one per sender of the payment's parts). */
export interface PayoutKey {
  readonly paymentId: PaymentId
  readonly kind: PayoutKind
  /** Unset: 0. */
  readonly leg?: number | undefined
}

/** What commits together with a payout change, all or nothing. */
export interface PayoutEffects {
  /** The payment's next state: stored only if its stored `stateVersion` is one less. */
  readonly payment?: Payment | undefined
  /** Outbox events of the change. */
  readonly events?: ReadonlyArray<OutboxEvent> | undefined
  /** The refund record the payout executes, as it now stands. */
  readonly refund?: Refund | undefined
  /** Gas the service paid for the transfer whose receipt the change observes (recorded once per transaction). */
  readonly gas?: GasPaid | undefined
}

/**
 * Payout persistence. Each method is atomic; infrastructure failures are defects. A payment's
 * funds leave once: no two live (not `failed`) payouts of a payment share a leg, and a settlement
 * is planned with the payment locked against refunds.
 */
export class PayoutRepository extends Context.Service<PayoutRepository, {
  readonly find: (key: PayoutKey) => Effect.Effect<Option.Option<Payout>>
  /** A payment's payouts, by kind and leg. */
  readonly listByPayment: (paymentId: PaymentId) => Effect.Effect<ReadonlyArray<Payout>>
  /**
   * Up to `limit` succeeded payments whose settlement is yet to be decided, oldest first. Payments
   * whose settlement destination is not usable yet are left out, so they never fill the batch.
   */
  readonly undecided: (limit: number) => Effect.Effect<ReadonlyArray<Payment>>
  /**
   * Records the settlement decision of a succeeded payment: with the payment locked, reads its
   * merchant's settlement destination for the asset paid in (as committed then, and kept from
   * changing until the decision commits), stores the settlement `plan` makes of it and of the
   * refunds so far (if any) and marks the payment decided; `plan` answering `"waiting"` leaves the
   * payment undecided. Answers whether a settlement was stored. Deciding again changes nothing,
   * until a refund withdraws the settlement (`RefundRepository.insert`): then what that refund
   * left is decided anew.
   */
  readonly decide: (
    paymentId: PaymentId,
    plan: (destination: Option.Option<CryptoSettlement>, prior: PriorRefunds) => Payout | null | "waiting"
  ) => Effect.Effect<boolean>
  /**
   * Compare-and-set: stores `next` only if the stored payout's version is `next.version - 1`, with
   * `effects` (whose payment is itself compare-and-set). Answers `false`, writing nothing, when
   * another writer got there first.
   */
  readonly update: (next: Payout, effects?: PayoutEffects) => Effect.Effect<boolean>
  /**
   * A retry: stores every payout of `next` (failed payouts of one payment and kind, now pending) as
   * `update` does, all or nothing, due at once. Answers `false`, writing nothing, when another
   * writer got there first, or when another live payout of the payment holds its funds.
   */
  readonly reopen: (next: ReadonlyArray<Payout>, effects: PayoutEffects) => Effect.Effect<boolean>
}>()("@paygate/domain/PayoutRepository") {}
