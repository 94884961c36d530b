import { PaymentStatus } from "@paygate/domain"
import { Schema } from "effect"
import { Amount } from "./Amount.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"

/** The merchant as shown to the buyer (spec "MerchantInfo"). */
export const MerchantInfo = Schema.Struct({
  name: Schema.String,
  iconUrl: nullableKey(Schema.String)
}).annotate({ identifier: "MerchantInfo" })

/** Decoded {@link MerchantInfo}. */
export type MerchantInfo = typeof MerchantInfo.Type

/** The buyer's account once known (spec "BuyerInfo"). */
export const BuyerInfo = Schema.Struct({
  accountCaip10: Schema.String,
  accountProviderName: Schema.String,
  accountProviderIcon: nullableKey(Schema.String)
}).annotate({ identifier: "BuyerInfo" })

/** Decoded {@link BuyerInfo}. */
export type BuyerInfo = typeof BuyerInfo.Type

/** Payment info, the body of `GET /v1/gateway/payment/{id}` (spec "GetPaymentResponse"). */
export const GetPaymentResponse = Schema.Struct({
  status: PaymentStatus,
  amount: Amount,
  expiresAt: NonNegativeInt,
  merchant: MerchantInfo,
  buyer: nullableKey(BuyerInfo)
}).annotate({ identifier: "GetPaymentResponse" })

/** Decoded {@link GetPaymentResponse}. */
export type GetPaymentResponse = typeof GetPaymentResponse.Type
