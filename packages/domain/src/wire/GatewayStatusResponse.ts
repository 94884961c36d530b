import { Schema } from "effect"
import { PaymentStatus } from "../payment/PaymentStatus.ts"
import { PollInMs } from "./PollInMs.ts"

/** Answer of `GET /v1/gateway/payment/{id}/status`. */
export const GatewayStatusResponse = Schema.Struct({
  status: PaymentStatus,
  isFinal: Schema.Boolean,
  pollInMs: PollInMs
}).annotate({ identifier: "GatewayStatusResponse" })

/** Decoded {@link GatewayStatusResponse}. */
export type GatewayStatusResponse = typeof GatewayStatusResponse.Type
