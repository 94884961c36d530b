import { InvalidState, MerchantNotFound, PaymentNotFound } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { captureDescription, voidDescription } from "./CaptureDescriptions.ts"
import { createDescription } from "./CreateDescription.ts"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"
import { ResponseStorage } from "./ResponseStorage.ts"

/** Body of `POST /v1/payments`. Structural only: amount, reference and URL rules are the use case's. */
export const PartnerCreatePaymentRequest = Schema.Struct({
  merchantId: Schema.String,
  amount: ApiWire.CreatePaymentAmount,
  referenceId: Schema.String,
  checkout: Schema.optionalKey(ApiWire.CheckoutConfig),
  ...ApiWire.CaptureFields
}).annotate({ identifier: "PartnerCreatePaymentRequest" })

/**
 * Response of `POST /v1/payments` (201): the payment record (gateway statuses, API rules §4) plus
 * the fields of the create response of service-spec that the record lacks (`gatewayUrl`,
 * `pollInMs`), so it is a superset of that response.
 */
export const CreatedPayment = Schema.Struct({
  ...ApiWire.PaymentRecord.fields,
  gatewayUrl: Schema.String,
  /** The payment's x402 address: any x402 client pays it there (docs/x402.md). */
  x402Url: Schema.String,
  pollInMs: ApiWire.PollInMs
}).annotate({ identifier: "CreatedPayment" })

/** One page of payments: `{"data", "nextCursor"}` (API rules §11). */
export const PaymentPage = Schema.Struct({
  data: Schema.Array(ApiWire.PaymentRecord),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PaymentPage" })

const text = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

/**
 * The filters of the payment list operations (API rules §11), every one a plain string (or strings):
 * values are checked by the use case, which reports bad ones as `invalid_params`.
 */
export const PaymentListFilters = {
  status: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description: "Repeatable: requires_action, processing, succeeded, failed, expired, cancelled, authorized, voided, reclaimed."
    })
  ),
  referenceId: text("The merchant's reference, exactly."),
  linkId: text("Only payments opened from this payment link (docs/payment-links.md)."),
  startTs: text("Created at or after (Unix seconds)."),
  endTs: text("Created before (Unix seconds)."),
  sortDir: text("asc or desc (by creation; default desc)."),
  limit: text("1 to 100; default 20."),
  cursor: text("nextCursor of the previous page.")
}

const paymentId = { id: Schema.String }

const retryDescription = (stage: string, owner: string) =>
  `A failed ${stage} moved nothing: its amount is still owed to the ${owner}. This makes it pending again with fresh ` +
  `attempts, and the worker pays it. Its last transaction is read from the chain first, so one that went through ` +
  `after all completes the ${stage} and nothing is sent twice. A ${stage} that is not failed (or a second retry at ` +
  "the same time) is `invalid_state`" + (stage === "settlement" ? "; so is a settlement whose amount the payment's refunds took." : ".")

const approveDescription = (stage: string) =>
  `A ${stage} over a payout limit the operator configured (per payout, per refund or per day) waits, unsigned, with ` +
  "`waitingFor: \"approval\"` and `approvalReason` on its stage. A team owner's approval (this route, or the operator's " +
  "`payout approve`) lets the worker send it whatever the limits; it still counts in the day's total. A " + stage +
  " that does not wait for approval (or a second approval at the same time) is `invalid_state`. Owners only."

/** Partner API: payments of the partner's merchants, statuses in the gateway vocabulary (API rules §4, §11). */
export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("create", "/v1/payments", {
      payload: PartnerCreatePaymentRequest,
      success: CreatedPayment.pipe(HttpApiSchema.status(201)),
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(OpenApi.Summary, "Create a payment for one of the partner's merchants").annotate(OpenApi.Description, createDescription).annotate(ResponseStorage, "singleWrite"),
    HttpApiEndpoint.get("list", "/v1/payments", {
      query: { ...PaymentListFilters, merchantId: text("Only this merchant's payments.") },
      success: PaymentPage
    }).annotate(OpenApi.Summary, "List payments, newest first, with optional filters"),
    HttpApiEndpoint.get("get", "/v1/payments/:id", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: wire(PaymentNotFound, "PaymentNotFound")
    }).annotate(OpenApi.Summary, "A payment's full record, with its settlement and refund"),
    HttpApiEndpoint.post("cancel", "/v1/payments/:id/cancel", {
      params: paymentId,
      success: ApiWire.CancelResponse,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Cancel a payment that still waits for the buyer"),
    HttpApiEndpoint.post("capture", "/v1/payments/:id/capture", {
      params: paymentId,
      payload: ApiWire.CaptureRequest,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Capture some or all of a held payment").annotate(OpenApi.Description, captureDescription),
    HttpApiEndpoint.post("void", "/v1/payments/:id/void", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Give what a held payment still holds back to the buyer").annotate(OpenApi.Description, voidDescription),
    HttpApiEndpoint.post("retryRefund", "/v1/payments/:id/refund/retry", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Retry the payment's failed refund").annotate(OpenApi.Description, retryDescription("refund", "payer")),
    HttpApiEndpoint.post("retrySettlement", "/v1/payments/:id/settlement/retry", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Retry the payment's failed settlement")
      .annotate(OpenApi.Description, retryDescription("settlement", "merchant's settlement destination")),
    HttpApiEndpoint.post("approveRefund", "/v1/payments/:id/refund/approve", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Approve the payment's refund held over a payout limit").annotate(OpenApi.Description, approveDescription("refund")),
    HttpApiEndpoint.post("approveSettlement", "/v1/payments/:id/settlement/approve", {
      params: paymentId,
      success: ApiWire.PaymentRecord,
      error: [wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Approve the payment's settlement held over a payout limit")
      .annotate(OpenApi.Description, approveDescription("settlement")),
    HttpApiEndpoint.get("status", "/v1/payments/:id/status", {
      params: paymentId,
      success: ApiWire.GatewayStatusResponse,
      error: wire(PaymentNotFound, "PaymentNotFound")
    }).annotate(OpenApi.Summary, "A payment's status and the suggested polling delay")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Payments")
{}
