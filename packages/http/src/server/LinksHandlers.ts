import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { fiatAmount, type LinkView, pageRequest, PaymentLinks } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import type { PaymentLinkRecord } from "../api/LinksApi.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

/** The partner API's record of a link, its page at `{linkUrl}/{id}`. */
export const linkRecord = (linkUrl: string) => ({ link, state, totals }: LinkView): PaymentLinkRecord => {
  const amount = (value: bigint | null) => value === null ? null : fiatAmount(link.currency, value)
  return {
    linkId: link.id,
    merchantId: link.merchantId,
    title: link.title,
    url: `${linkUrl}/${link.id}`,
    amount: amount(link.value),
    minAmount: amount(link.minValue),
    maxAmount: amount(link.maxValue),
    usage: link.usage,
    maxPayments: link.maxPayments,
    invoice: link.invoice === null ? null : {
      reference: link.invoice.reference,
      dueDate: link.invoice.dueDate,
      buyerEmail: link.invoice.buyerEmail,
      lines: link.invoice.lines.map((line) => ({ description: line.description, quantity: line.quantity, unitValue: line.unitValue.toString() }))
    },
    expiresAt: link.expiresAt,
    active: link.active,
    state,
    totals: { payments: totals.payments, succeeded: totals.succeeded, collected: fiatAmount(link.currency, totals.collected) },
    createdAt: Math.floor(link.createdAt / 1000),
    updatedAt: Math.floor(link.updatedAt / 1000)
  }
}

/** Partner API payment link handlers. */
export const LinksHandlers = HandlerGroup.group(
  PaygateApi,
  "links",
  Effect.fn(function*(handlers) {
    const links = yield* PaymentLinks
    const record = linkRecord((yield* CheckoutSettings).linkUrl)
    return handlers
      .handle("create", ({ payload }) => Effect.map(Effect.flatMap(partnerAccess, (access) => links.create(access, payload)), record))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* links.list(yield* partnerAccess, { merchantId: query.merchantId, page: yield* pageRequest(query) })
          return { data: page.data.map(record), nextCursor: page.nextCursor }
        }))
      .handle("get", ({ params }) => Effect.map(Effect.flatMap(partnerAccess, (access) => links.find(access, params.id)), record))
      .handle("deactivate", ({ params }) =>
        Effect.map(Effect.flatMap(partnerAccess, (access) => links.setActive(access, params.id, false)), record))
      .handle("activate", ({ params }) =>
        Effect.map(Effect.flatMap(partnerAccess, (access) => links.setActive(access, params.id, true)), record))
  })
)
