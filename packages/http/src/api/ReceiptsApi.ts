import { AlreadyRefunded, InvalidState, PaymentNotFound, PaymentStatus, PayoutStatus, ReceiptOutcome } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"

const tokenAmount = (description: string) => Schema.String.annotate({ description: `${description} Token base units, decimal.` })

/**
 * A transfer the chain watcher found arriving at a collection address (also the `receipt` of a
 * `payment.processing` stage it caused, and of every `payment.transfer_received` stage).
 */
export const ReceiptRecord = Schema.Struct({
  receiptId: Schema.String.annotate({ description: "rcp_…" }),
  outcome: ReceiptOutcome.annotate({
    description: "paid: the payment's amount while it waited (processed as a confirm); overpaid: more (processed, the " +
      "excess refundable); underpaid: less (the payment stays open); late: the payment no longer waited (expired, " +
      "cancelled or paid otherwise); unmatched: no reference this service handed out."
  }),
  paymentId: Schema.NullOr(Schema.String),
  paymentStatus: Schema.NullOr(PaymentStatus).annotate({ description: "The payment's status when the transfer was recorded." }),
  chainId: Schema.String.annotate({ description: "CAIP-2." }),
  asset: Schema.String.annotate({ description: "CAIP-19 token." }),
  txHash: Schema.String,
  logIndex: Wire.NonNegativeInt,
  blockNumber: Wire.NonNegativeInt,
  blockTime: Wire.NonNegativeInt.annotate({ description: "Unix seconds of the block." }),
  from: Schema.String.annotate({ description: "CAIP-10 sender; refunds go back to it." }),
  value: tokenAmount("Received."),
  expectedValue: Schema.NullOr(tokenAmount("What the payment's option asked for.")),
  shortfall: tokenAmount("Missing for the amount asked (underpaid), else 0."),
  refundableValue: tokenAmount("Not kept by the payment: the excess (overpaid) or everything (underpaid, late, unmatched)."),
  reference: Schema.NullOr(Schema.String).annotate({ description: "The 16-byte reference (push) or EIP-3009 nonce the transaction carried." }),
  createdAt: Wire.NonNegativeInt.annotate({ description: "Unix seconds when it was recorded." }),
  refund: Schema.NullOr(Schema.Struct({
    status: PayoutStatus,
    value: tokenAmount("Sent back to `from`."),
    txHash: Schema.NullOr(Schema.String)
  })).annotate({ description: "The refund once asked for: sent back to the sender from the collection address by the worker." }),
  reversedAt: Schema.NullOr(Wire.NonNegativeInt).annotate({
    description: "Unix seconds when a reorganisation of the chain deeper than its confirmations removed the transfer: it no " +
      "longer counts and has nothing to refund (the same transfer mined again is a new receipt); null while on chain."
  })
}).annotate({ identifier: "ReceiptRecord" })

/** One page of receipts. */
export const ReceiptPage = Schema.Struct({
  data: Schema.Array(ReceiptRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ReceiptPage" })

const text = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

/** Partner API: what arrived on chain at the collection addresses (reconciliation). */
export class ReceiptsApi extends HttpApiGroup.make("receipts")
  .add(
    HttpApiEndpoint.get("list", "/v1/receipts", {
      query: {
        outcome: Schema.optionalKey(
          Schema.Array(Schema.String).annotate({
            description: "Repeatable: paid, overpaid, underpaid, late; or unmatched alone (the transfers no payment claims)."
          })
        ),
        paymentId: text("Only this payment's receipts."),
        limit: text("1 to 100; default 20."),
        cursor: text("nextCursor of the previous page.")
      },
      success: ReceiptPage
    }).annotate(OpenApi.Summary, "Transfers found on chain at the collection addresses, newest first")
      .annotate(
        OpenApi.Description,
        "The chain watcher records every token transfer into a collection address once it has the chain's required " +
          "confirmations, matched to a payment by the reference its transaction carried. Lists the receipts of the " +
          "partner's payments (mode of the key); with `outcome=unmatched`, the transfers that carried no reference the " +
          "service handed out, which belong to no partner and are listed to every partner."
      ),
    HttpApiEndpoint.post("refund", "/v1/receipts/:id/refund", {
      params: { id: Schema.String },
      success: ReceiptRecord,
      error: [
        // A receipt is a sub-resource of its payment: a missing one responds with the payment's code (API rules §1).
        wire(PaymentNotFound, "PaymentNotFound"),
        wire(InvalidState, "InvalidState"),
        wire(AlreadyRefunded, "AlreadyRefunded")
      ]
    }).annotate(OpenApi.Summary, "Send a receipt's refundable value back to its sender; a second request is 409")
      .annotate(
        OpenApi.Description,
        "Refunds what the payment did not keep: an overpayment's excess, or all of an underpaid, late or unmatched " +
          "transfer, to the transfer's sender, from the collection address (the worker sends it; `refund.txHash` once " +
          "sent, `refund.status` completed or failed). A receipt that paid its payment (`refundableValue` 0) is " +
          "`invalid_state` (refund the payment with `POST /v1/refunds`); a second request is `already_refunded`. An " +
          "unmatched receipt may be refunded by any partner, once."
      )
,
    HttpApiEndpoint.post("retryRefund", "/v1/receipts/:id/refund/retry", {
      params: { id: Schema.String },
      success: ReceiptRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Retry a receipt's failed refund")
      .annotate(
        OpenApi.Description,
        "A failed refund moved nothing: its value is still owed to the sender. This makes it pending again with fresh " +
          "attempts, and the worker sends it. Its last transaction is read from the chain first, so one that went " +
          "through after all completes the refund and nothing is sent twice. A receipt without a refund, or whose " +
          "refund is not failed (or a second retry at the same time), is `invalid_state`; an unmatched receipt's " +
          "refund is retried only by the partner that asked for it."
      )
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Receipts")
{}
