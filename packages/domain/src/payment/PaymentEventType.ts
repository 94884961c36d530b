import { Schema } from "effect"

/** Webhook event types (service-spec "Webhook events"). */
export const PaymentEventType = Schema.Literals([
  "payment.created",
  "payment.processing",
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.cancelled",
  "payment.settled",
  // Not in the service specification: added (API rules §6, fields and kinds are only ever added) for
  // transfers the chain watcher records against a payment without moving it (underpaid, late).
  "payment.transfer_received",
  // Not in the service specification either: a refund's transfers all went through, or one of them failed.
  "payment.refunded",
  "payment.refund_failed",
  // Held payments (`capture: "manual"`): the funds reached the escrow; a capture went through (the last
  // one, emptying the escrow, is `payment.succeeded`); a capture or void the chain refused for good;
  // what was held went back to the buyer by a void or the buyer's reclaim.
  "payment.authorized",
  "payment.captured",
  "payment.capture_failed",
  "payment.voided",
  "payment.reclaimed"
])
/** A webhook event type. */
export type PaymentEventType = typeof PaymentEventType.Type
