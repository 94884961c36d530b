import * as HandlerGroup from "./HandlerGroup.ts"
import { refundStage, Refunds } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

/** Partner API refund handlers: the refund is recorded here and executed on chain by the worker. */
export const RefundsHandlers = HandlerGroup.group(
  PaygateApi,
  "refunds",
  Effect.fn(function*(handlers) {
    const refunds = yield* Refunds
    return handlers.handle("create", ({ payload }) =>
      Effect.gen(function*() {
        const refund = yield* refunds.request(yield* partnerAccess, payload.paymentId, payload.amount)
        return {
          refundId: refund.id,
          paymentId: refund.paymentId,
          amount: refundStage(refund).amount,
          tokenValue: refund.value.toString(),
          status: refund.status,
          txHash: refund.txHash,
          createdAt: Math.floor(refund.createdAt / 1000)
        }
      }))
  })
)
