import { PaymentStatus, ReceiptOutcome, Wire } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PartnerAuth } from "./Security.ts"

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
  createdAt: Wire.NonNegativeInt.annotate({ description: "Unix seconds when it was recorded." })
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
      )
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Receipts")
{}
