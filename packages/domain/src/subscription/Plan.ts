import { Schema } from "effect"
import { MerchantId, PartnerId, PlanId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"

/**
 * A merchant's subscription plan: what a buyer signs up for. Each period costs `value` of `unit`:
 * minor units of a fiat currency (the buyer's token amount is fixed, at the price then, when they
 * sign) or base units of a token. Periods last `periodSeconds` (fixed length: the contract
 * counts seconds, not calendar months); the first charge comes `trialSeconds` after signing; the
 * term is `periods` periods, or open-ended (`null`) until cancelled. A deactivated plan takes no new
 * subscriber; its subscriptions go on.
 */
export class Plan extends Schema.Class<Plan>("paygate/Plan")({
  id: PlanId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  mode: Mode,
  /** Shown to the buyer, 1–200 characters. */
  name: Schema.String,
  /** As the API writes a unit: `iso4217/<CODE>` or `caip19/<asset>`. */
  unit: Schema.String,
  value: Schema.BigInt,
  periodSeconds: Schema.Int,
  trialSeconds: Schema.Int,
  periods: Schema.NullOr(Schema.Int),
  active: Schema.Boolean,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  updatedAt: Schema.Int
}) {}
