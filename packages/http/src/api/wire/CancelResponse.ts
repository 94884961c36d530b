import { CancelReason, Wire } from "@paygate/domain"
import { Schema } from "effect"

/** Response of a cancel operation; `cancelledAt` is a Unix timestamp in seconds. */
export const CancelResponse = Schema.Struct({
  paymentId: Schema.String,
  status: Schema.Literal("cancelled"),
  cancelledAt: Wire.NonNegativeInt,
  cancelledReason: CancelReason
}).annotate({ identifier: "CancelResponse" })

/** Decoded {@link CancelResponse}. */
export type CancelResponse = typeof CancelResponse.Type
