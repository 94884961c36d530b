import { Schema } from "effect"
import { CollectData } from "./CollectData.ts"
import { GetPaymentResponse } from "./PaymentInfo.ts"
import { PaymentOption } from "./PaymentOption.ts"
import { nullableKey } from "./nullableKey.ts"

/**
 * Body of `POST /v1/gateway/payment/{id}/options`. Structural only: the 1–20 account count and
 * CAIP-10 format are rule checks (`params_validation`) made elsewhere.
 */
export const GetPaymentOptionsRequest = Schema.Struct({
  accounts: Schema.Array(Schema.String),
  refresh: nullableKey(Schema.Array(Schema.String))
}).annotate({ identifier: "GetPaymentOptionsRequest" })

/** Decoded {@link GetPaymentOptionsRequest}. */
export type GetPaymentOptionsRequest = typeof GetPaymentOptionsRequest.Type

/**
 * Response of `POST /v1/gateway/payment/{id}/options`: payment-level `collectData`, `info`, `options`.
 * The spec allows `options: null`; this service always sends an array (`[]` when nothing can be
 * quoted), because real wallet SDKs of this API family require the array and reject a null.
 */
export const GetPaymentOptionsResponse = Schema.Struct({
  collectData: nullableKey(CollectData),
  info: nullableKey(GetPaymentResponse),
  options: Schema.Array(PaymentOption)
}).annotate({ identifier: "GetPaymentOptionsResponse" })

/** Decoded {@link GetPaymentOptionsResponse}. */
export type GetPaymentOptionsResponse = typeof GetPaymentOptionsResponse.Type
