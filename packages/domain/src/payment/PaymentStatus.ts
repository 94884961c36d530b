import { Schema } from "effect"

/**
 * Internal and gateway payment statuses (API rules §4). A held payment (`capture: "manual"`) adds three:
 * `authorized` (its funds are in the escrow), `voided` (given back to the buyer before any capture) and
 * `reclaimed` (taken back by the buyer after the capture deadline, nothing captured).
 */
export const PaymentStatus = Schema.Literals([
  "requires_action",
  "processing",
  "succeeded",
  "failed",
  "expired",
  "cancelled",
  "authorized",
  "voided",
  "reclaimed"
])
/** A gateway payment status. */
export type PaymentStatus = typeof PaymentStatus.Type

/** Statuses of the Merchant API view (`/v1/merchant/…`). */
export const MerchantPaymentStatus = Schema.Literals(["pending", "processing", "succeeded", "failed", "expired", "authorized", "voided", "reclaimed"])
/** A Merchant API payment status. */
export type MerchantPaymentStatus = typeof MerchantPaymentStatus.Type

/** Why a payment was cancelled. */
export const CancelReason = Schema.Literals(["cancelled_by_user", "cancelled_by_merchant"])
/** Why a payment was cancelled. */
export type CancelReason = typeof CancelReason.Type
