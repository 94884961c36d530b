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
  "payment.refund_failed"
])
/** A webhook event type. */
export type PaymentEventType = typeof PaymentEventType.Type
