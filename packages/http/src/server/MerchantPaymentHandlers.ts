import { isFinal, merchantStatus, Merchants, type Payment, Payments, pollInMs, Wire } from "@paygate/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller, CurrentMerchantId } from "../api/Security.ts"
import { CheckoutSettings } from "./CheckoutSettings.ts"
import { answerStoredWithWrite, jsonOf } from "./Idempotency.ts"

const createAnswer = jsonOf(Wire.CreatePaymentResponse)

/** Merchant API handlers: statuses in the merchant vocabulary (contract §6). */
export const MerchantPaymentHandlers = HttpApiBuilder.group(
  PaygateApi,
  "merchantPayment",
  Effect.fn(function*(handlers) {
    const payments = yield* Payments
    const merchants = yield* Merchants
    const { checkoutUrl } = yield* CheckoutSettings
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const merchantId = yield* CurrentMerchantId
          return yield* answerStoredWithWrite(
            (completion) =>
              payments.create({ ...payload, partnerId: caller.partner.id, merchantId, mode: caller.mode, completion }),
            (payment: Payment) =>
              createAnswer({
                paymentId: payment.id,
                gatewayUrl: `${checkoutUrl}/${payment.id}`,
                status: merchantStatus(payment.status),
                expiresAt: payment.expiresAt,
                isFinal: isFinal(payment.status),
                pollInMs: pollInMs(payment.status)
              })
          )
        }))
      .handle("status", ({ params }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const access = { partnerId: caller.partner.id, mode: caller.mode }
          const merchant = yield* merchants.get(access, yield* CurrentMerchantId)
          const payment = yield* payments.find({ ...access, merchantId: merchant.id }, params.id)
          return { status: merchantStatus(payment.status), isFinal: isFinal(payment.status) }
        }))
  })
)
