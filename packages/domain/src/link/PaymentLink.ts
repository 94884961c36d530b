import { Schema } from "effect"
import { MerchantId, PartnerId, PaymentLinkId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"

/** One line of an invoice: shown on the link page; amounts in the link currency's minor units. */
export class InvoiceLine extends Schema.Class<InvoiceLine>("paygate/InvoiceLine")({
  description: Schema.String,
  quantity: Schema.Int,
  unitValue: Schema.BigInt
}) {}

/** What a single-use link bills: the merchant's reference, when it is due and to whom, and its lines. */
export class Invoice extends Schema.Class<Invoice>("paygate/Invoice")({
  /** Becomes the `referenceId` of the payment made through the link. */
  reference: Schema.String,
  /** Calendar date `YYYY-MM-DD`; shown to the buyer (a late invoice can still be paid until `expiresAt`). */
  dueDate: Schema.NullOr(Schema.String),
  buyerEmail: Schema.NullOr(Schema.String),
  lines: Schema.Array(InvoiceLine)
}) {}

/**
 * A payment link: a page a buyer opens to pay one of the partner's merchants, without code.
 * Either a fixed `value` or an amount the buyer enters between `minValue` and `maxValue`.
 * A `single` link (an invoice) is paid once; a `reusable` one up to `maxPayments` times (no limit when `null`).
 */
export class PaymentLink extends Schema.Class<PaymentLink>("paygate/PaymentLink")({
  id: PaymentLinkId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  mode: Mode,
  title: Schema.String,
  /** ISO 4217 code. */
  currency: Schema.String,
  /** Fixed amount in minor units, or `null` when the buyer enters it. */
  value: Schema.NullOr(Schema.BigInt),
  /** Bounds of an entered amount, minor units, inclusive. */
  minValue: Schema.NullOr(Schema.BigInt),
  maxValue: Schema.NullOr(Schema.BigInt),
  usage: Schema.Literals(["single", "reusable"]),
  maxPayments: Schema.NullOr(Schema.Int),
  invoice: Schema.NullOr(Invoice),
  /** Unix seconds after which the link takes no payment; `null`: never. */
  expiresAt: Schema.NullOr(Schema.Int),
  active: Schema.Boolean,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  updatedAt: Schema.Int
}) {}

/** How many payments a link may have at once that are paid or may still be paid; `null`: no limit. */
export const linkCapacity = (link: PaymentLink): number | null => link.usage === "single" ? 1 : link.maxPayments

/** The payments made through a link. */
export interface LinkTotals {
  /** Every payment opened from the link, whatever became of it. */
  readonly payments: number
  readonly succeeded: number
  /** Sum of the succeeded payments, minor units of the link's currency. */
  readonly collected: bigint
}

/** Why a link takes no payment now, or `open`. */
export type LinkState = "open" | "inactive" | "expired" | "paid" | "limit_reached"

/** A link's state at `nowSeconds` given its totals. */
export const linkState = (link: PaymentLink, totals: LinkTotals, nowSeconds: number): LinkState => {
  const capacity = linkCapacity(link)
  if (link.usage === "single" && totals.succeeded >= 1) return "paid"
  if (capacity !== null && totals.succeeded >= capacity) return "limit_reached"
  if (!link.active) return "inactive"
  if (link.expiresAt !== null && nowSeconds >= link.expiresAt) return "expired"
  return "open"
}
