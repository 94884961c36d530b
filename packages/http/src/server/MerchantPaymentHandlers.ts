import * as HandlerGroup from "./HandlerGroup.ts"
import { checkoutWarning, isFinal, merchantStatus, Merchants, Payments, pollInMs } from "@paygate/domain"
import { Context, Effect } from "effect"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller, CurrentMerchantId } from "../api/Security.ts"
import { createdResponse } from "./CreatedResponse.ts"
import { jsonOf } from "./Idempotency.ts"
import * as ApiWire from "../api/wire/index.ts"

const createResponse = jsonOf(ApiWire.CreatePaymentResponse)

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
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const merchantId = yield* CurrentMerchantId
          const payment = yield* payments.create({ ...payload, partnerId: caller.partner.id, merchantId, mode: caller.mode, merchantRead: "recent" })
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
            Effect.map((payment) => ({ status: merchantStatus(payment.status), isFinal: isFinal(payment.status) }))
          )
        }))
  })
)
