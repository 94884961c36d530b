import { InvalidState, PaymentNotFound, Wire } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { GatewayAuth } from "./Security.ts"

const params = { id: Schema.String }
const notFound = wire(PaymentNotFound, "PaymentNotFound")

/** Wallet-facing gateway operations on one payment (contract §5). The payment id is the capability. */
export class GatewayApi extends HttpApiGroup.make("gateway")
  .add(
    HttpApiEndpoint.get("payment", "/v1/gateway/payment/:id", { params, success: Wire.GetPaymentResponse, error: notFound })
      .annotate(OpenApi.Summary, "Basic information to show the buyer before the flow begins"),
    HttpApiEndpoint.get("status", "/v1/gateway/payment/:id/status", {
      params,
      query: { maxPollMs: Schema.optional(Schema.String) },
      success: Wire.GatewayStatusResponse,
      error: notFound
    }).annotate(OpenApi.Summary, "Status and polling delay; with maxPollMs (≤ 30000) waits for a change"),
    HttpApiEndpoint.post("cancel", "/v1/gateway/payment/:id/cancel", {
      params,
      success: Wire.CancelResponse,
      error: [notFound, wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "The buyer cancels a payment that still waits for them")
  )
  .middleware(GatewayAuth)
  .annotate(OpenApi.Title, "Gateway")
{}
