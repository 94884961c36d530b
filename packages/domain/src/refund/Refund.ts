import { Schema } from "effect"
import { PartnerId, PaymentId, RefundId } from "../ids/Ids.ts"

/** Lifecycle of a refund, a stage of a succeeded payment (not a payment status). */
export const RefundStatus = Schema.Literals(["pending", "completed", "failed"])
/** A refund status. */
export type RefundStatus = typeof RefundStatus.Type

/** A full refund of a succeeded payment; at most one per payment. Executed on chain by the worker. */
export class Refund extends Schema.Class<Refund>("paygate/Refund")({
  id: RefundId,
  paymentId: PaymentId,
  partnerId: PartnerId,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}
