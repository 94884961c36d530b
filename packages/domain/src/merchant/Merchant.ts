import { Schema } from "effect"
import { MerchantId, PartnerId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"

/** A merchant of a partner. Soft-deleted merchants stay readable but take no new payments. */
export class Merchant extends Schema.Class<Merchant>("paygate/Merchant")({
  id: MerchantId,
  partnerId: PartnerId,
  mode: Mode,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  /** HTTPS URL of a square logo; `null` when unset. */
  iconUrl: Schema.NullOr(Schema.String),
  deleted: Schema.Boolean,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}
