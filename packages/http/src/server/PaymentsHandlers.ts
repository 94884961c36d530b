import * as HandlerGroup from "./HandlerGroup.ts"
import {
  approvalWait,
  checkoutWarning,
  ExplorerLinks,
  Holds,
  isFinal,
  type Payment,
  PaymentRepository,
  Payments,
  PayoutApprovals,
  PayoutRepository,
  PayoutRetries,
  pollInMs,
  RefundRepository,
  settlementStage,
  toPaymentRecord
} from "@paygate/domain"
import { Effect, Option } from "effect"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { PaygateApi } from "../api/Api.ts"
import { CreatedPayment } from "../api/PaymentsApi.ts"
import { CurrentCaller } from "../api/Security.ts"
import { captureInput } from "./CaptureInput.ts"
import { createdResponse } from "./CreatedResponse.ts"
import { jsonOf } from "./Idempotency.ts"
import { decodePaymentListQuery } from "./PaymentListQuery.ts"

const createResponse = jsonOf(CreatedPayment)

/** The partner and mode of the authenticated caller: what every partner operation is scoped to. */
export const partnerAccess = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  return { partnerId: caller.partner.id, mode: caller.mode }
})

// Reads of a record's stages that met a newer version of its payment before giving up on a stable one.
const maxStageReads = 3

/**
 * Builds the function that returns payment records with their refund and settlement stages (over
 * the repositories in context). Only a succeeded payment can have either, so only those are looked up.
 * A stage that ends (a settlement completed, say) bumps the payment's version in the same
 * transaction, and the stages are read after the payment: so the payment is read again after its
 * stages, and the stages again when its version moved meanwhile, else a record could show the new
 * stage under the old version.
 */
export const paymentRecords = Effect.gen(function*() {
  const repository = yield* PaymentRepository
  const refunds = yield* RefundRepository
  const payouts = yield* PayoutRepository
  const explorer = yield* ExplorerLinks
  const withStages = (read: Payment) =>
    Effect.gen(function*() {
      let payment = read
      for (let attempt = 1; ; attempt++) {
        const refund = Option.getOrNull(yield* refunds.findByPayment(payment.id))
        const all = yield* payouts.listByPayment(payment.id)
        const settlement = all.find((payout) => payout.kind === "settlement")
        const refundWait = approvalWait(all.filter((payout) => payout.kind === "refund" && payout.refundId === refund?.id))
        const stages = { refund, settlement: settlement === undefined ? null : settlementStage(settlement), refundWait }
        const again = yield* repository.findById(payment.id)
        if (Option.isNone(again) || again.value.stateVersion === payment.stateVersion || attempt >= maxStageReads) {
          return toPaymentRecord(payment, stages, explorer)
        }
        payment = again.value
      }
    })
  // All at once: the reads of the page's records then share a statement per table (see the repositories).
  return (payments: ReadonlyArray<Payment>) =>
    Effect.forEach(payments, (payment) =>
      payment.status === "succeeded" ? withStages(payment) : Effect.succeed(toPaymentRecord(payment, {}, explorer)), { concurrency: "unbounded" })
})

/** Partner API payment handlers: statuses in the gateway vocabulary (API rules §4). */
export const PaymentsHandlers = HandlerGroup.group(
  PaygateApi,
  "payments",
  Effect.fn(function*(handlers) {
    const payments = yield* Payments
    const { checkoutUrl, x402Url } = yield* CheckoutSettings
    const records = yield* paymentRecords
    const retries = yield* PayoutRetries
    const approvals = yield* PayoutApprovals
    const holds = yield* Holds
    const approve = (id: string, kind: "refund" | "settlement") =>
      Effect.gen(function*() {
        const caller = yield* CurrentCaller
        const { payment } = yield* approvals.approve(yield* partnerAccess, id, kind, caller.actor)
        return yield* recordOf(payment)
      })
    const recordOf = (payment: Payment) => Effect.map(records([payment]), ([record]) => record!)
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          const payment = yield* payments.create({ ...payload, ...access, capture: captureInput(payload) })
          const body = createResponse({
            ...toPaymentRecord(payment),
            gatewayUrl: `${checkoutUrl}/${payment.id}`,
            x402Url: `${x402Url}/${payment.id}`,
            pollInMs: pollInMs(payment.status)
          })
          return createdResponse(201, body, checkoutWarning(access.mode, payload.checkout))
        }))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          const page = yield* payments.list(access, yield* decodePaymentListQuery(query))
          return { data: yield* records(page.data), nextCursor: page.nextCursor }
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          return yield* recordOf(yield* payments.find(yield* partnerAccess, params.id))
        }))
      .handle("cancel", ({ params }) =>
        Effect.gen(function*() {
          const payment = yield* payments.cancel(yield* partnerAccess, params.id, "cancelled_by_merchant")
          return {
            paymentId: payment.id,
            status: "cancelled" as const,
            cancelledAt: payment.cancelledAt ?? Math.floor(payment.updatedAt / 1000),
            cancelledReason: payment.cancelledReason ?? "cancelled_by_merchant"
          }
        }))
      .handle("capture", ({ params, payload }) =>
        Effect.flatMap(Effect.flatMap(partnerAccess, (access) => holds.capture(access, params.id, payload.amount)), recordOf))
      .handle("void", ({ params }) => Effect.flatMap(Effect.flatMap(partnerAccess, (access) => holds.void(access, params.id)), recordOf))
      .handle("retryRefund", ({ params }) =>
        Effect.flatMap(Effect.flatMap(partnerAccess, (access) => retries.retry(access, params.id, "refund")), recordOf))
      .handle("retrySettlement", ({ params }) =>
        Effect.flatMap(Effect.flatMap(partnerAccess, (access) => retries.retry(access, params.id, "settlement")), recordOf))
      .handle("approveRefund", ({ params }) => approve(params.id, "refund"))
      .handle("approveSettlement", ({ params }) => approve(params.id, "settlement"))
      .handle("status", ({ params }) =>
        Effect.gen(function*() {
          const payment = yield* payments.find(yield* partnerAccess, params.id)
          return { status: payment.status, isFinal: isFinal(payment.status), pollInMs: pollInMs(payment.status) }
        }))
  })
)
