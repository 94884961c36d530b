import { MerchantPaymentStatus } from "@paygate/domain"
import { Schema } from "effect"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { HoldRecord } from "./PaymentRecord.ts"
import { PollInMs } from "./PollInMs.ts"

/** The amount of a create request: only `unit` (`iso4217/{CODE}`) and `value` (minor units). */
export const CreatePaymentAmount = Schema.Struct({
  unit: Schema.String,
  value: Schema.String
}).annotate({ identifier: "CreatePaymentAmount" })

/** Decoded {@link CreatePaymentAmount}. */
export type CreatePaymentAmount = typeof CreatePaymentAmount.Type

/** Redirect configuration of a create request; both keys optional (missing stays missing). */
export const CheckoutConfig = Schema.Struct({
  successUrl: Schema.optionalKey(Schema.String),
  errorUrl: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CheckoutConfig" })

/** Decoded {@link CheckoutConfig}. */
export type CheckoutConfig = typeof CheckoutConfig.Type

/**
 * How a payment's funds are taken (docs/held-payments.md): `automatic` (the default: the buyer's payment
 * is the merchant's once it succeeds) or `manual` (held in the escrow until captured), with the capture
 * window in seconds counted from the payment's expiry, and whether what is still held goes back to the
 * buyer at its end.
 */
export const CaptureFields = {
  capture: Schema.optionalKey(Schema.Literals(["automatic", "manual"])),
  captureWindowSeconds: Schema.optionalKey(Schema.Int),
  voidAtDeadline: Schema.optionalKey(Schema.Boolean)
}

/** Body of `POST /v1/merchant/payment`. Structural only: currency, value and URL rules are checked elsewhere. */
export const CreatePaymentRequest = Schema.Struct({
  amount: CreatePaymentAmount,
  referenceId: Schema.String,
  checkout: Schema.optionalKey(CheckoutConfig),
  ...CaptureFields
}).annotate({ identifier: "CreatePaymentRequest" })

/** Decoded {@link CreatePaymentRequest}. */
export type CreatePaymentRequest = typeof CreatePaymentRequest.Type

/**
 * Response of `POST /v1/merchant/payment`. `pollInMs` is an integer while the payment is not final
 * and `null` once it is (API rules §10), so it is always present.
 */
export const CreatePaymentResponse = Schema.Struct({
  paymentId: Schema.String,
  gatewayUrl: Schema.String,
  /** The payment's x402 address: any x402 client pays it there (docs/x402.md). */
  x402Url: Schema.String,
  status: MerchantPaymentStatus,
  expiresAt: NonNegativeInt,
  isFinal: Schema.Boolean,
  pollInMs: PollInMs
}).annotate({ identifier: "CreatePaymentResponse" })

/** Decoded {@link CreatePaymentResponse}. */
export type CreatePaymentResponse = typeof CreatePaymentResponse.Type

/** Response of `GET /v1/merchant/payment/{id}/status` (and of a held payment's capture and void). */
export const MerchantStatusResponse = Schema.Struct({
  status: MerchantPaymentStatus,
  isFinal: Schema.Boolean,
  /** A held payment's hold (docs/held-payments.md); absent for the others. */
  hold: Schema.optionalKey(HoldRecord)
}).annotate({ identifier: "MerchantStatusResponse" })

/** Body of a held payment's capture: `amount` in the payment's currency (minor units), everything not yet captured when absent. */
export const CaptureRequest = Schema.Struct({
  amount: Schema.optionalKey(CreatePaymentAmount)
}).annotate({ identifier: "CaptureRequest" })

/** Decoded {@link MerchantStatusResponse}. */
export type MerchantStatusResponse = typeof MerchantStatusResponse.Type
