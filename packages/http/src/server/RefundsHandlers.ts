import * as HandlerGroup from "./HandlerGroup.ts"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { PaymentRefunds, type Refund, RefundClaims, refundStage, Refunds } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

/** A refund as the partner API shows it (`RefundRecord`). */
const refundRecord = (refund: Refund) => ({
  refundId: refund.id,
  paymentId: refund.paymentId,
  amount: refundStage(refund).amount,
  tokenValue: refund.value.toString(),
  status: refund.status,
  txHash: refund.txHash,
  createdAt: Math.floor(refund.createdAt / 1000)
})

/** Partner API refund handlers: the refund is recorded here and executed on chain by the worker. */
export const RefundsHandlers = HandlerGroup.group(
  PaygateApi,
  "refunds",
  Effect.fn(function*(handlers) {
    const refunds = yield* Refunds
    const paymentRefunds = yield* PaymentRefunds
    const claims = yield* RefundClaims
    const { refundClaimUrl } = yield* CheckoutSettings
    const claimLink = (link: { readonly token: string; readonly expiresAt: number }) => ({
      claimUrl: `${refundClaimUrl}/${link.token}`,
      claimExpiresAt: Math.floor(link.expiresAt / 1000)
    })
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          const { link, refund } = payload.to === "claim"
            ? yield* claims.create(access, payload.paymentId, payload.amount)
            : { refund: yield* refunds.request(access, payload.paymentId, payload.amount), link: undefined }
          return { ...refundRecord(refund), ...(link === undefined ? {} : claimLink(link)) }
        }))
      .handle("list", ({ params }) =>
        Effect.gen(function*() {
          const listed = yield* paymentRefunds.list(yield* partnerAccess, params.id)
          const data = listed.map(({ refund, asset, transfers }) => ({
            ...refundRecord(refund),
            asset,
            transfers: transfers.map((payout) => ({
              recipient: payout.recipient,
              value: payout.value.toString(),
              status: payout.status,
              txHash: payout.transfer?.txHash ?? null
            }))
          }))
          return { data, nextCursor: null }
        }))
      .handle("claimLink", ({ params }) =>
        Effect.gen(function*() {
          const link = yield* claims.reissue(yield* partnerAccess, params.refundId)
          return { refundId: params.refundId, ...claimLink(link) }
        }))
  })
)
