import { InvalidState, MerchantNotFound, PaymentNotFound } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { createDescription } from "./CreateDescription.ts"
import { captureDescription, voidDescription } from "./CaptureDescriptions.ts"
import { wire } from "./ErrorWire.ts"
import { MerchantAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"
import { ResponseStorage } from "./ResponseStorage.ts"

/** Merchant API: create a checkout payment and verify its status (service-spec "Endpoints"). */
export class MerchantPaymentApi extends HttpApiGroup.make("merchantPayment")
  .add(
    HttpApiEndpoint.post("create", "/v1/merchant/payment", {
      payload: ApiWire.CreatePaymentRequest,
      success: ApiWire.CreatePaymentResponse,
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(OpenApi.Summary, "Create a payment to be completed on the checkout portal").annotate(OpenApi.Description, createDescription).annotate(ResponseStorage, "singleWrite"),
    HttpApiEndpoint.get("status", "/v1/merchant/payment/:id/status", {
      params: { id: Schema.String },
      success: ApiWire.MerchantStatusResponse,
      error: [wire(MerchantNotFound, "MerchantNotFound"), wire(PaymentNotFound, "PaymentNotFound")]
    }).annotate(OpenApi.Summary, "Verify a payment's status before fulfilling the order"),
    HttpApiEndpoint.post("capture", "/v1/merchant/payment/:id/capture", {
      params: { id: Schema.String },
      payload: ApiWire.CaptureRequest,
      success: ApiWire.MerchantStatusResponse,
      error: [wire(MerchantNotFound, "MerchantNotFound"), wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Capture some or all of a held payment").annotate(OpenApi.Description, captureDescription),
    HttpApiEndpoint.post("void", "/v1/merchant/payment/:id/void", {
      params: { id: Schema.String },
      success: ApiWire.MerchantStatusResponse,
      error: [wire(MerchantNotFound, "MerchantNotFound"), wire(PaymentNotFound, "PaymentNotFound"), wire(InvalidState, "InvalidState")]
    }).annotate(OpenApi.Summary, "Give what a held payment still holds back to the buyer").annotate(OpenApi.Description, voidDescription)
  )
  .middleware(MerchantAuth)
  .annotate(OpenApi.Title, "Merchant API")
{}
