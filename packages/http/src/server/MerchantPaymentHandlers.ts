import * as HandlerGroup from "./HandlerGroup.ts"
import { checkoutWarning, Holds, isFinal, merchantStatus, Merchants, type Payment, Payments, pollInMs, toPaymentRecord } from "@paygate/domain"
import { Context, Effect } from "effect"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller, CurrentMerchantId } from "../api/Security.ts"
import { captureInput } from "./CaptureInput.ts"
import { createdResponse } from "./CreatedResponse.ts"
import { jsonOf } from "./Idempotency.ts"
import * as ApiWire from "../api/wire/index.ts"

const createResponse = jsonOf(ApiWire.CreatePaymentResponse)

// The status response: a held payment's with its hold.
const statusOf = (payment: Payment) => {
  const hold = payment.hold === undefined ? undefined : toPaymentRecord(payment).hold
  return { status: merchantStatus(payment.status), isFinal: isFinal(payment.status), ...(hold === undefined ? {} : { hold }) }
}

/**
 * Merchant API handlers: statuses in the merchant vocabulary (API rules §4). They only read the
 * merchant their `Merchant-Id` names, so a `recent` read of it will do (the credential cache's).
 */
export const MerchantPaymentHandlers = HandlerGroup.group(
  PaygateApi,
  "merchantPayment",
  Effect.fn(function*(handlers) {
    const payments = yield* Payments
    const merchants = yield* Merchants
    const { checkoutUrl, x402Url } = yield* CheckoutSettings
    const holds = yield* Holds
    // The merchant the caller's `Merchant-Id` names (a missing one is `merchant_not_found`), as payment access.
    const merchantAccess = Effect.gen(function*() {
      const caller = yield* CurrentCaller
      const access = { partnerId: caller.partner.id, mode: caller.mode }
      const merchant = yield* merchants.get(access, yield* CurrentMerchantId, "recent")
      return { ...access, merchantId: merchant.id }
    })
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const merchantId = yield* CurrentMerchantId
          const payment = yield* payments.create({
            ...payload,
            partnerId: caller.partner.id,
            merchantId,
            mode: caller.mode,
            merchantRead: "recent",
            capture: captureInput(payload)
          })
          const body = createResponse({
            paymentId: payment.id,
            gatewayUrl: `${checkoutUrl}/${payment.id}`,
            x402Url: `${x402Url}/${payment.id}`,
            status: merchantStatus(payment.status),
            expiresAt: payment.expiresAt,
            isFinal: isFinal(payment.status),
            pollInMs: pollInMs(payment.status)
          })
          return createdResponse(200, body, checkoutWarning(caller.mode, payload.checkout))
        }))
      // Combinators, not a generator: merchants poll this.
      .handle("status", ({ params }) =>
        Effect.flatMap(Effect.context<CurrentCaller | CurrentMerchantId>(), (context) => {
          const caller = Context.get(context, CurrentCaller)
          const access = { partnerId: caller.partner.id, mode: caller.mode }
          return merchants.get(access, Context.get(context, CurrentMerchantId), "recent").pipe(
            Effect.flatMap((merchant) => payments.find({ ...access, merchantId: merchant.id }, params.id)),
            Effect.map(statusOf)
          )
        }))
      .handle("capture", ({ params, payload }) => Effect.map(Effect.flatMap(merchantAccess, (access) => holds.capture(access, params.id, payload.amount)), statusOf))
      .handle("void", ({ params }) => Effect.map(Effect.flatMap(merchantAccess, (access) => holds.void(access, params.id)), statusOf))
  })
)
