import { Schema } from "effect"
import { EventId, PartnerId, PaymentId } from "../ids/Ids.ts"
import { Payment } from "./Payment.ts"
import { PaymentEventType } from "./PaymentEventType.ts"

/**
 * An event written in the same transaction as the payment change it reports (the outbox).
 * It carries the payment as it was right after the change, so delivery never re-reads state.
 */
export class OutboxEvent extends Schema.Class<OutboxEvent>("paygate/OutboxEvent")({
  id: EventId,
  type: PaymentEventType,
  partnerId: PartnerId,
  paymentId: PaymentId,
  payment: Payment,
  /** Event-specific details (the envelope's `stage`). */
  stage: Schema.Record(Schema.String, Schema.Unknown),
  /** Unix seconds. */
  createdAt: Schema.Int
}) {}
