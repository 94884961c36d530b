import { MerchantNotFound } from "@paygate/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { MerchantAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"

const refusals = "A payment that does not pass answers 200 with `isValid: false` (verify) or `success: false` (settle) and x402's reason and a message, never an error status."

/**
 * paygate as an x402 facilitator (protocol version 2, `exact` scheme, EIP-3009 tokens) for the
 * merchant the `Merchant-Id` header names; see docs/x402.md.
 */
export class X402Api extends HttpApiGroup.make("x402")
  .add(
    HttpApiEndpoint.get("supported", "/x402/supported", {
      success: ApiWire.X402SupportedResponse,
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(OpenApi.Summary, "x402 payment kinds the merchant can receive"),
    HttpApiEndpoint.post("verify", "/x402/verify", {
      payload: ApiWire.X402FacilitatorRequest,
      success: ApiWire.X402VerifyResponse
    }).annotate(OpenApi.Summary, "Verify an x402 payment for the merchant").annotate(OpenApi.Description, refusals),
    HttpApiEndpoint.post("settle", "/x402/settle", {
      payload: ApiWire.X402FacilitatorRequest,
      success: ApiWire.X402SettleResponse
    }).annotate(OpenApi.Summary, "Settle an x402 payment as a payment of the merchant").annotate(
      OpenApi.Description,
      `${refusals} Idempotent on the authorization (token, payer, nonce): a retried or concurrent settle answers the same payment and never sends twice; a transaction not confirmed within the wait answers \`settlement_pending\` with its hash.`
    )
  )
  .middleware(MerchantAuth)
  // x402 clients send fields paygate does not read (extensions, resource descriptions).
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "ignore" })
  .annotate(OpenApi.Title, "x402 facilitator")
{}
