import * as HandlerGroup from "./HandlerGroup.ts"
import { InvalidParams, pageRequest, ReceiptOutcome, ReceiptRefunds, Receipts, receiptView } from "@paygate/domain"
import { Effect, Schema } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const isOutcome = Schema.is(ReceiptOutcome)

/** Partner API receipt handlers: the list query decoded (bad values are `invalid_params`), then `Receipts.list`; refunds through `ReceiptRefunds`. */
export const ReceiptsHandlers = HandlerGroup.group(
  PaygateApi,
  "receipts",
  Effect.fn(function*(handlers) {
    const receipts = yield* Receipts
    const refunds = yield* ReceiptRefunds
    return handlers.handle("list", ({ query }) =>
      Effect.gen(function*() {
        const page = yield* pageRequest(query)
        const outcomes = query.outcome ?? []
        if (!outcomes.every(isOutcome)) {
          return yield* new InvalidParams({ message: `outcome must be one of ${ReceiptOutcome.literals.join(", ")}.` })
        }
        const listed = yield* receipts.list(yield* partnerAccess, { outcomes, paymentId: query.paymentId, page })
        return { data: listed.data.map(receiptView), nextCursor: listed.nextCursor }
      }))
      .handle("refund", ({ params }) =>
        Effect.gen(function*() {
          return receiptView(yield* refunds.request(yield* partnerAccess, params.id))
        }))
      .handle("retryRefund", ({ params }) =>
        Effect.gen(function*() {
          return receiptView(yield* refunds.retry(yield* partnerAccess, params.id))
        }))
  })
)
