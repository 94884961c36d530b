import { PaymentStatus } from "@paygate/domain"
import { Schema } from "effect"
import { PollInMs } from "./PollInMs.ts"

/** Response of `GET /v1/gateway/payment/{id}/status`. */
export const GatewayStatusResponse = Schema.Struct({
  status: PaymentStatus,
  isFinal: Schema.Boolean,
  pollInMs: PollInMs
}).annotate({ identifier: "GatewayStatusResponse" })

/** Decoded {@link GatewayStatusResponse}. */
export type GatewayStatusResponse = typeof GatewayStatusResponse.Type
