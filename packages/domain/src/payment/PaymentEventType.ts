import { Schema } from "effect"

/** Webhook event types (service-spec "Webhook events"). */
export const PaymentEventType = Schema.Literals([
  "payment.created",
  "payment.processing",
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.cancelled",
  "payment.settled"
])
/** A webhook event type. */
export type PaymentEventType = typeof PaymentEventType.Type
