import { AlreadyRefunded, InvalidState, ParamsValidation, PaymentNotFound, PaymentNotSucceeded, PayoutStatus, RefundStatus } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"

/** Body of `POST /v1/refunds`. Structural only: the amount's rules are the use case's. */
export const RefundRequest = Schema.Struct({
  paymentId: Schema.String,
  to: Schema.optionalKey(
    Schema.Literals(["payer", "claim"]).annotate({
      description: "Where the refund goes: `payer` (default) back to the accounts that paid; `claim` to an address the buyer " +
        "chooses on the page of the one-time link `claimUrl` (the refund reserves its amount now and is sent once claimed)."
    })
  ),
  amount: Schema.optionalKey(
    Schema.Struct({ unit: Schema.String, value: Schema.String }).annotate({
      description: "How much to give back, in the payment's own currency: `unit` is the payment's (`iso4217/USD`), `value` " +
        "minor units (`\"500\"` is USD 5.00). Absent: all that is left to refund. Its token value is its share of the token " +
        "amount paid, rounded down; the refund that uses up the payment sends exactly the tokens left."
    })
  )
}).annotate({ identifier: "RefundRequest" })

/** A refund as the partner API shows it; the worker executes it on chain (`txHash` once sent). */
export const RefundRecord = Schema.Struct({
  refundId: Schema.String,
  paymentId: Schema.String,
  /** What it gives back, in the payment's currency. */
  amount: Schema.Struct({ unit: Schema.String, value: Schema.String }),
  /** What it sends back: base units of the token paid, all its transfers together. */
  tokenValue: Schema.String,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  /** Unix seconds. */
  createdAt: Wire.NonNegativeInt,
  /** A refund `to: "claim"`: the link to send the buyer (shown once; a new one replaces it), and when it expires (Unix seconds). */
  claimUrl: Schema.optionalKey(Schema.String),
  claimExpiresAt: Schema.optionalKey(Wire.NonNegativeInt)
}).annotate({ identifier: "RefundRecord" })

/** One on-chain transfer of a refund: one per sender of the payment's parts (one for a payment paid at once). */
export const RefundTransfer = Schema.Struct({
  /** CAIP-10 account the tokens go back to. */
  recipient: Schema.String,
  /** Token base units. */
  value: Schema.String,
  status: PayoutStatus,
  txHash: Schema.NullOr(Schema.String)
}).annotate({ identifier: "RefundTransfer" })

/** A refund with the token it sends back and its transfers, as `GET /v1/payments/{id}/refunds` lists it. */
export const RefundDetail = Schema.Struct({
  ...RefundRecord.fields,
  /** CAIP-19 token of `tokenValue`: the one the payment was paid in. */
  asset: Schema.String,
  transfers: Schema.Array(RefundTransfer)
}).annotate({ identifier: "RefundDetail" })

/** A payment's refunds, oldest first, all in one page (`nextCursor` is always `null`). */
export const RefundList = Schema.Struct({
  data: Schema.Array(RefundDetail),
  nextCursor: Schema.Null
}).annotate({ identifier: "RefundList" })

/** A new claim link of a refund to an address the buyer chooses. */
export const RefundClaimLink = Schema.Struct({
  refundId: Schema.String,
  claimUrl: Schema.String,
  /** Unix seconds. */
  claimExpiresAt: Wire.NonNegativeInt
}).annotate({ identifier: "RefundClaimLink" })

/** Partner API: refunds of succeeded payments, whole or in part (API rules §11). */
export class RefundsApi extends HttpApiGroup.make("refunds")
  .add(
    HttpApiEndpoint.post("create", "/v1/refunds", {
      payload: RefundRequest,
      success: RefundRecord.pipe(HttpApiSchema.status(201)),
      error: [
        wire(PaymentNotFound, "PaymentNotFound"),
        wire(PaymentNotSucceeded, "PaymentNotSucceeded"),
        // Nothing, or less than asked, is left to refund.
        wire(AlreadyRefunded, "AlreadyRefunded"),
        wire(ParamsValidation, "ParamsValidation"),
        // The payment's funds were settled to the merchant: they are no longer at the collection address.
        wire(InvalidState, "InvalidState")
      ]
    }).annotate(OpenApi.Summary, "Refund a succeeded payment, whole or in part; asking for more than is left is 409 already_refunded"),
    HttpApiEndpoint.get("list", "/v1/payments/:id/refunds", {
      params: { id: Schema.String },
      success: RefundList,
      error: wire(PaymentNotFound, "PaymentNotFound")
    }).annotate(OpenApi.Summary, "A payment's refunds, oldest first, each with its on-chain transfers")
  )
  .add(
    HttpApiEndpoint.post("claimLink", "/v1/refunds/:refundId/claim-link", {
      params: { refundId: Schema.String },
      success: RefundClaimLink.pipe(HttpApiSchema.status(201)),
      error: [
        // Unknown, another partner's, or not a refund to an address the buyer chooses.
        wire(PaymentNotFound, "PaymentNotFound"),
        // Claimed already: its payout exists.
        wire(InvalidState, "InvalidState")
      ]
    }).annotate(OpenApi.Summary, "Issue a new claim link for an unclaimed refund to an address the buyer chooses; the previous link stops working")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Refunds")
{}
