import { CancelReason } from "@paygate/domain"
import { Schema } from "effect"
import { NonNegativeInt } from "./NonNegativeInt.ts"

/** Response of a cancel operation; `cancelledAt` is a Unix timestamp in seconds. */
export const CancelResponse = Schema.Struct({
  paymentId: Schema.String,
  status: Schema.Literal("cancelled"),
  cancelledAt: NonNegativeInt,
  cancelledReason: CancelReason
}).annotate({ identifier: "CancelResponse" })

/** Decoded {@link CancelResponse}. */
export type CancelResponse = typeof CancelResponse.Type
