import * as HandlerGroup from "./HandlerGroup.ts"
import {
  type CryptoSettlement,
  type Merchant,
  Merchants,
  ParamsValidation,
  Payments,
  Settlements
} from "@paygate/domain"
import { MissingMerchantId } from "../api/HttpErrors.ts"
import { Effect } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { PaygateApi } from "../api/Api.ts"
import type { PaymentListFilters } from "../api/PaymentsApi.ts"
import { decodePaymentListQuery } from "./PaymentListQuery.ts"
import { partnerAccess, paymentRecords } from "./PaymentsHandlers.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

/** The partner API's view of a merchant. */
export const toMerchantRecord = (merchant: Merchant) => ({
  merchantId: merchant.id,
  merchantName: merchant.name,
  merchantEmail: merchant.email,
  iconUrl: merchant.iconUrl,
  status: merchant.deleted ? "deleted" as const : "active" as const,
  createdAt: seconds(merchant.createdAt),
  updatedAt: seconds(merchant.updatedAt)
})

/** The partner API's view of a crypto settlement destination. */
export const toSettlementRecord = (settlement: CryptoSettlement) => ({
  id: settlement.id,
  asset: settlement.asset,
  destination: settlement.destination,
  createdAt: seconds(settlement.createdAt),
  updatedAt: seconds(settlement.updatedAt),
  usableFrom: seconds(settlement.usableFrom)
})

const settlementsOf = (crypto: ReadonlyArray<CryptoSettlement>) => ({ crypto: crypto.map(toSettlementRecord), fiat: [] as const })

type PaymentFilters = { readonly [K in keyof typeof PaymentListFilters]?: (typeof PaymentListFilters)[K]["Type"] }

/** Where the deprecated per-path listing points its callers (RFC 8594 `Link: rel="successor-version"`). */
const successor = "</v1/merchants/payments>; rel=\"successor-version\""

/** Partner API merchant handlers: profiles, settlement destinations and a merchant's payments. */
export const MerchantsHandlers = HandlerGroup.group(
  PaygateApi,
  "merchants",
  Effect.fn(function*(handlers) {
    const merchants = yield* Merchants
    const settlements = yield* Settlements
    const payments = yield* Payments
    const records = yield* paymentRecords

    // A merchant's payments (deleted merchants included: their payments stay readable).
    const merchantPayments = (merchantId: string, query: PaymentFilters) =>
      Effect.gen(function*() {
        const access = yield* partnerAccess
        const merchant = yield* merchants.get(access, merchantId)
        const page = yield* payments.list(access, { ...yield* decodePaymentListQuery(query), merchantId: merchant.id })
        const data = yield* records(page.data)
        return { data, nextCursor: page.nextCursor }
      })

    return handlers
      .handle("create", ({ payload, request }) =>
        Effect.gen(function*() {
          // The pipeline stores and replays the response under the key; here it is only required.
          if (request.headers["idempotency-key"] === undefined) {
            return yield* new ParamsValidation({ message: "The Idempotency-Key header is required." })
          }
          const merchant = yield* merchants.create(yield* partnerAccess, {
            merchantName: payload.merchantName,
            merchantEmail: payload.merchantEmail ?? undefined,
            iconUrl: payload.iconUrl ?? undefined
          })
          return toMerchantRecord(merchant)
        }))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* merchants.list(yield* partnerAccess, query)
          return { data: page.data.map(toMerchantRecord), nextCursor: page.nextCursor }
        }))
      .handle("payments", ({ headers, query }) =>
        Effect.gen(function*() {
          const merchantId = headers["merchant-id"]?.trim()
          if (merchantId === undefined || merchantId === "") {
            return yield* new MissingMerchantId({ message: "The Merchant-Id header is required." })
          }
          return yield* merchantPayments(merchantId, query)
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const access = yield* partnerAccess
          const merchant = yield* merchants.get(access, params.merchantId)
          const crypto = yield* settlements.list(access, merchant.id)
          return { ...toMerchantRecord(merchant), settlements: settlementsOf(crypto) }
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const merchant = yield* merchants.update(yield* partnerAccess, params.merchantId, payload)
          return toMerchantRecord(merchant)
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const merchant = yield* merchants.remove(yield* partnerAccess, params.merchantId)
          return { merchantId: merchant.id, deleted: true as const }
        }))
      .handle("paymentsByPath", ({ params, query }) =>
        Effect.map(
          merchantPayments(params.merchantId, query),
          (body) => HttpApiSchema.withHeaders({ body, headers: { deprecation: "true" as const, link: successor } })
        ))
      .handle("settlements", ({ params }) =>
        Effect.gen(function*() {
          return settlementsOf(yield* settlements.list(yield* partnerAccess, params.merchantId))
        }))
      .handle("registerCrypto", ({ params, payload }) =>
        Effect.gen(function*() {
          const registered = yield* settlements.register(yield* partnerAccess, params.merchantId, payload.settlements)
          return { crypto: registered.map(toSettlementRecord) }
        }))
      .handle("changeCrypto", ({ params, payload }) =>
        Effect.gen(function*() {
          const settlement = yield* settlements.changeDestination(yield* partnerAccess, params.merchantId, params.id, payload.destination)
          return toSettlementRecord(settlement)
        }))
      .handle("removeCrypto", ({ params }) =>
        Effect.gen(function*() {
          yield* settlements.remove(yield* partnerAccess, params.merchantId, params.id)
          return { id: params.id, deleted: true as const }
        }))
  })
)
