/**
 * A payment's x402 address, `GET /v1/x402/payments/{id}` (docs/x402.md): x402 clients (and agents)
 * pay a paygate payment with no wallet UI. Unpaid, it responds `402` with `PaymentRequired` (in the
 * `PAYMENT-REQUIRED` header, base64 JSON, and the body); with a `PAYMENT-SIGNATURE` it settles
 * that payment and responds with the payment's status and `PAYMENT-RESPONSE`; once the payment needs
 * nothing more, its status. The payment id is the capability, as on the checkout.
 *
 * @module
 */
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { isFinal, type Payment, pollInMs, type X402Offer, X402PaymentAddress, type X402Settlement, x402Version } from "@paygate/domain"
import { Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as ApiWire from "../api/wire/index.ts"
import { settleResponse, x402Request } from "./X402Handlers.ts"

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64")
const decodePayload = Schema.decodeUnknownOption(Schema.fromJsonString(ApiWire.X402PaymentPayload))
const headers = { "cache-control": "no-store", "x-content-type-options": "nosniff" }

const statusOf = (payment: Payment) => ({ status: payment.status, isFinal: isFinal(payment.status), pollInMs: pollInMs(payment.status) })

/** The x402 address route. */
export const X402PaymentRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const address = yield* X402PaymentAddress
  const { x402Url } = yield* CheckoutSettings

  const respond = (paymentId: string, offer: X402Offer, settlement?: X402Settlement) => {
    const settled = settlement === undefined ? {} : { "payment-response": base64(settleResponse(settlement)) }
    if (offer._tag === "Settled") return HttpServerResponse.json(statusOf(offer.payment), { headers: { ...headers, ...settled } })
    const required = {
      x402Version,
      ...(settlement?.errorMessage === undefined ? {} : { error: `${settlement.errorReason}: ${settlement.errorMessage}` }),
      resource: { url: `${x402Url}/${paymentId}`, description: `Payment ${paymentId}`, mimeType: "application/json" },
      accepts: offer.accepts
    }
    return HttpServerResponse.json(required, { status: 402, headers: { ...headers, ...settled, "payment-required": base64(required) } })
  }

  yield* router.add(
    "GET",
    "/v1/x402/payments/:paymentId",
    Effect.gen(function*() {
      const { paymentId = "" } = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      const signature = request.headers["payment-signature"]
      if (signature === undefined) return yield* Effect.flatMap(address.offer(paymentId), (offer) => respond(paymentId, offer))
      const payload = decodePayload(Buffer.from(signature, "base64").toString("utf8"))
      if (Option.isNone(payload)) {
        return yield* HttpServerResponse.json(
          { code: "params_validation", message: "PAYMENT-SIGNATURE must be an x402 PaymentPayload, JSON in base64." },
          { status: 400, headers }
        )
      }
      const { payment } = x402Request({ x402Version: payload.value.x402Version, paymentPayload: payload.value, paymentRequirements: payload.value.accepted })
      const attempt = yield* address.pay(paymentId, payment)
      return yield* respond(paymentId, attempt.offer, attempt.settlement)
    }).pipe(
      Effect.catchTag("PaymentNotFound", (error) =>
        HttpServerResponse.json({ code: "payment_not_found", message: error.message }, { status: 404, headers }))
    )
  )
}))
