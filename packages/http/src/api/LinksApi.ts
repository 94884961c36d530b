import { MerchantNotFound, PaymentNotFound } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"

const InvoiceLineWire = Schema.Struct({
  description: Schema.String,
  quantity: Schema.Number,
  /** Minor units of the link's currency. */
  unitValue: Schema.String
}).annotate({ identifier: "InvoiceLine" })

/** Body of `POST /v1/links`. Structural only: the rules are the use case's (docs/payment-links.md). */
export const CreateLinkRequest = Schema.Struct({
  merchantId: Schema.String,
  title: Schema.String.annotate({ description: "What the buyer pays for, shown on the link's page (1–200 characters)." }),
  amount: Schema.optionalKey(ApiWire.CreatePaymentAmount.annotate({ description: "A fixed amount; give this or openAmount." })),
  openAmount: Schema.optionalKey(
    Schema.Struct({ unit: Schema.String, minValue: Schema.optionalKey(Schema.String), maxValue: Schema.optionalKey(Schema.String) })
      .annotate({ description: "The buyer enters the amount, within these bounds (minor units, inclusive)." })
  ),
  usage: Schema.String.annotate({ description: "single (an invoice, paid once) or reusable." }),
  maxPayments: Schema.optionalKey(Schema.Number.annotate({ description: "Reusable links only: how many payments it takes at most." })),
  invoice: Schema.optionalKey(
    Schema.Struct({
      reference: Schema.String,
      dueDate: Schema.optionalKey(Schema.String),
      buyerEmail: Schema.optionalKey(Schema.String),
      lines: Schema.optionalKey(Schema.Array(InvoiceLineWire))
    }).annotate({ description: "Single-use links only. The reference becomes the payment's referenceId." })
  ),
  expiresAt: Schema.optionalKey(Schema.Number.annotate({ description: "Unix seconds; after it the link takes no payment." }))
}).annotate({ identifier: "CreateLinkRequest" })

/** A payment link as the partner API shows it. */
export const PaymentLinkRecord = Schema.Struct({
  linkId: Schema.String,
  merchantId: Schema.String,
  title: Schema.String,
  /** The link's page: share it, or show its QR code. */
  url: Schema.String,
  amount: Schema.NullOr(ApiWire.Amount),
  minAmount: Schema.NullOr(ApiWire.Amount),
  maxAmount: Schema.NullOr(ApiWire.Amount),
  usage: Schema.Literals(["single", "reusable"]),
  maxPayments: Schema.NullOr(Schema.Int),
  invoice: Schema.NullOr(Schema.Struct({
    reference: Schema.String,
    dueDate: Schema.NullOr(Schema.String),
    buyerEmail: Schema.NullOr(Schema.String),
    lines: Schema.Array(InvoiceLineWire)
  })),
  expiresAt: Schema.NullOr(Schema.Int),
  active: Schema.Boolean,
  /** open, or why it takes no payment: inactive, expired, paid (a single-use link), limit_reached. */
  state: Schema.Literals(["open", "inactive", "expired", "paid", "limit_reached"]),
  totals: Schema.Struct({
    /** Payments opened from the link, whatever became of them. */
    payments: Schema.Int,
    succeeded: Schema.Int,
    /** Sum of the succeeded payments. */
    collected: ApiWire.Amount
  }),
  createdAt: Schema.Int,
  updatedAt: Schema.Int
}).annotate({ identifier: "PaymentLink" })
/** A payment link record. */
export type PaymentLinkRecord = typeof PaymentLinkRecord.Type

const linkId = { id: Schema.String }
const notFound = wire(PaymentNotFound, "PaymentNotFound")

/** Partner API: payment links of the partner's merchants (docs/payment-links.md). */
export class LinksApi extends HttpApiGroup.make("links")
  .add(
    HttpApiEndpoint.post("create", "/v1/links", {
      payload: CreateLinkRequest,
      success: PaymentLinkRecord.pipe(HttpApiSchema.status(201)),
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(OpenApi.Summary, "Create a payment link (or a single-use invoice) for one of the partner's merchants"),
    HttpApiEndpoint.get("list", "/v1/links", {
      query: {
        merchantId: Schema.optionalKey(Schema.String),
        limit: Schema.optionalKey(Schema.String),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: Schema.Struct({ data: Schema.Array(PaymentLinkRecord), nextCursor: Schema.NullOr(Schema.String) })
        .annotate({ identifier: "PaymentLinkPage" })
    }).annotate(OpenApi.Summary, "List payment links, newest first, with their totals (their payments: GET /v1/payments?linkId=…)"),
    HttpApiEndpoint.get("get", "/v1/links/:id", { params: linkId, success: PaymentLinkRecord, error: notFound })
      .annotate(OpenApi.Summary, "A payment link with its totals"),
    HttpApiEndpoint.post("deactivate", "/v1/links/:id/deactivate", { params: linkId, success: PaymentLinkRecord, error: notFound })
      .annotate(OpenApi.Summary, "Stop a link taking payments (payments already opened from it can still be paid)"),
    HttpApiEndpoint.post("activate", "/v1/links/:id/activate", { params: linkId, success: PaymentLinkRecord, error: notFound })
      .annotate(OpenApi.Summary, "Let a deactivated link take payments again")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Payment links")
{}
