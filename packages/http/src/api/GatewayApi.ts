import {
  InvalidParams,
  InvalidState,
  ParamsValidation,
  PaymentExpired,
  PaymentNotFound,
  QuoteExpired,
  SanctionedUser
} from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { GatewayAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"
import { ResponseStorage } from "./ResponseStorage.ts"

const params = { id: Schema.String }
const notFound = wire(PaymentNotFound, "PaymentNotFound")
const expired = wire(PaymentExpired, "PaymentExpired")
const invalidState = wire(InvalidState, "InvalidState")
const invalidParams = wire(InvalidParams, "InvalidParams")

/** Wallet-facing gateway operations on one payment (API rules §10). The payment id is the capability. */
export class GatewayApi extends HttpApiGroup.make("gateway")
  .add(
    HttpApiEndpoint.get("payment", "/v1/gateway/payment/:id", { params, success: ApiWire.GetPaymentResponse, error: notFound })
      .annotate(OpenApi.Summary, "Basic information to show the buyer before the flow begins"),
    HttpApiEndpoint.get("status", "/v1/gateway/payment/:id/status", {
      params,
      query: { maxPollMs: Schema.optional(Schema.String) },
      success: ApiWire.GatewayStatusResponse,
      error: notFound
    }).annotate(OpenApi.Summary, "Status and polling delay; with maxPollMs (≤ 30000) waits for a change"),
    HttpApiEndpoint.post("cancel", "/v1/gateway/payment/:id/cancel", {
      params,
      success: ApiWire.CancelResponse,
      error: [notFound, invalidState]
    }).annotate(OpenApi.Summary, "The buyer cancels a payment that still waits for them"),
    HttpApiEndpoint.post("options", "/v1/gateway/payment/:id/options", {
      params,
      query: { includePaymentInfo: Schema.optional(Schema.String) },
      payload: ApiWire.GetPaymentOptionsRequest,
      success: ApiWire.GetPaymentOptionsResponse,
      error: [
        notFound,
        expired,
        invalidState,
        wire(SanctionedUser, "SanctionedUser"),
        wire(ParamsValidation, "ParamsValidation"),
        invalidParams
      ]
    }).annotate(
      OpenApi.Summary,
      "Payment options for the buyer's accounts (1–20 CAIP-10); includePaymentInfo=true adds the payment's information"
    ).annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.post("fetch", "/v1/gateway/payment/:id/fetch", {
      params,
      payload: ApiWire.FetchRequest,
      success: ApiWire.FetchResponse,
      error: [notFound, expired, invalidState, wire(QuoteExpired, "QuoteExpired"), invalidParams]
    }).annotate(OpenApi.Summary, "Resolves an option's build action into wallet RPC actions").annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.post("confirm", "/v1/gateway/payment/:id/confirm", {
      params,
      payload: ApiWire.ConfirmRequest,
      success: ApiWire.ConfirmResponse,
      error: [
        notFound,
        expired,
        invalidState,
        wire(QuoteExpired, "QuoteExpired"),
        wire(SanctionedUser, "SanctionedUser"),
        wire(ParamsValidation, "ParamsValidation"),
        invalidParams
      ]
    }).annotate(
      OpenApi.Summary,
      "Commits the payment to an option with the wallet's results (signature or transaction hash); repeatable"
    ).annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.post("deposit", "/v1/gateway/payment/:id/deposit", {
      params,
      success: ApiWire.DepositOptionsResponse,
      error: [notFound, expired, invalidState]
    }).annotate(
      OpenApi.Summary,
      "The payment's own deposit address on each network with a deposit factory: a plain token transfer of the amount pays it (no body)"
    ).annotate(
      OpenApi.Description,
      "No options (an empty list) when no network has a deposit factory, or when the payment requires buyer data " +
        "(at or above the partner's data collection threshold): the data is owed by the paying account, which a plain " +
        "transfer only reveals once it has arrived, so such a payment is paid through the options operation."
    ).annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.post("collectData", "/v1/gateway/payment/:id/collect-data", {
      params,
      payload: ApiWire.CollectDataRequest,
      success: ApiWire.CollectDataResponse,
      error: [notFound, expired, invalidState, wire(SanctionedUser, "SanctionedUser"), wire(ParamsValidation, "ParamsValidation"), invalidParams]
    }).annotate(
      OpenApi.Summary,
      "The data collection page submits an account's buyer data, validated against the option's collectData.schema"
    )
  )
  .middleware(GatewayAuth)
  .annotate(OpenApi.Title, "Gateway")
{}
