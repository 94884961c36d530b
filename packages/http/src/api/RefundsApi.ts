import { AlreadyRefunded, InvalidState, PaymentNotFound, PaymentNotSucceeded, RefundStatus, Wire } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"

/** Body of `POST /v1/refunds`. */
export const RefundRequest = Schema.Struct({ paymentId: Schema.String }).annotate({ identifier: "RefundRequest" })

/** A refund as the partner API shows it; the worker executes it on chain (`txHash` once sent). */
export const RefundRecord = Schema.Struct({
  refundId: Schema.String,
  paymentId: Schema.String,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  /** Unix seconds. */
  createdAt: Wire.NonNegativeInt
}).annotate({ identifier: "RefundRecord" })

/** Partner API: full refunds of succeeded payments (API rules §11). */
export class RefundsApi extends HttpApiGroup.make("refunds")
  .add(
    HttpApiEndpoint.post("create", "/v1/refunds", {
      payload: RefundRequest,
      success: RefundRecord.pipe(HttpApiSchema.status(201)),
      error: [
        wire(PaymentNotFound, "PaymentNotFound"),
        wire(PaymentNotSucceeded, "PaymentNotSucceeded"),
        wire(AlreadyRefunded, "AlreadyRefunded"),
        // The payment's funds were settled to the merchant: they are no longer at the collection address.
        wire(InvalidState, "InvalidState")
      ]
    }).annotate(OpenApi.Summary, "Request a full refund of a succeeded payment; a second request is 409")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Refunds")
{}
