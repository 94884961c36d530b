import { Schema } from "effect"
import { PartnerId, PaymentId, RefundId } from "../ids/Ids.ts"

/** Lifecycle of a refund, a stage of a succeeded payment (not a payment status). */
export const RefundStatus = Schema.Literals(["pending", "completed", "failed"])
/** A refund status. */
export type RefundStatus = typeof RefundStatus.Type

/**
 * A refund of a succeeded payment, whole or in part; a payment may have several until its paid
 * amount is used up. Executed on chain by the worker.
 */
export class Refund extends Schema.Class<Refund>("paygate/Refund")({
  id: RefundId,
  paymentId: PaymentId,
  partnerId: PartnerId,
  /** The payment's currency (ISO 4217 code). */
  currency: Schema.String,
  /** What it gives back in that currency, minor units. */
  amount: Schema.BigInt,
  /** What it sends back, token base units of the committed token (all its payouts together). */
  value: Schema.BigInt,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}

/** A refund as webhooks report it (`payment.refunded`, `payment.refund_failed`); amounts as decimal strings. */
export const refundStage = (refund: Refund) => ({
  refundId: refund.id,
  status: refund.status,
  txHash: refund.txHash,
  amount: { unit: `iso4217/${refund.currency}`, value: refund.amount.toString() },
  tokenValue: refund.value.toString()
})
