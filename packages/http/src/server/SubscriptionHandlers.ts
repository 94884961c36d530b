/**
 * The handlers of plans, subscriptions (partner API) and subscribing (gateway API): records built
 * from the domain's values, with the plan's checkout address and the payer's manage link.
 *
 * @module
 */
import {
  AssetCatalog,
  Money,
  pageRequest,
  type PartnerAccess,
  type PayerView,
  type Plan,
  planAmount,
  Plans,
  type Subscription,
  type SubscriptionCharge,
  Subscriptions,
  toChargeRecord,
  tokenAmount,
  tokenDisplay,
  toSubscriptionRecord
} from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { CurrentGatewayCaller } from "../api/Security.ts"
import type { PlanRecord, SubscriptionDetail } from "../api/SubscriptionsApi.ts"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

// The records every group shows, over the catalog and the public addresses.
const records = Effect.gen(function*() {
  const catalog = yield* AssetCatalog
  const { subscribeUrl } = yield* CheckoutSettings
  const subscriptions = yield* Subscriptions
  const plan = (p: Plan): PlanRecord => ({
    planId: p.id,
    merchantId: p.merchantId,
    name: p.name,
    amount: planAmount(catalog, p),
    periodSeconds: p.periodSeconds,
    trialSeconds: p.trialSeconds,
    periods: p.periods,
    active: p.active,
    url: `${subscribeUrl}/${p.id}`,
    createdAt: seconds(p.createdAt),
    updatedAt: seconds(p.updatedAt)
  })
  // The token rides in the fragment: browsers never send it to a server, nor in a Referer.
  const manageUrl = (s: Subscription) => Effect.map(subscriptions.manageToken(s.id), (token) => `${subscribeUrl}/manage/${s.id}#${token}`)
  const detail = (s: Subscription, charges: ReadonlyArray<SubscriptionCharge>): Effect.Effect<SubscriptionDetail> =>
    Effect.map(manageUrl(s), (url) => ({ ...toSubscriptionRecord(s), charges: charges.map((c) => toChargeRecord(s, c)), manageUrl: url }))
  const payerView = (view: PayerView) => ({
    subscription: toSubscriptionRecord(view.subscription),
    amountPerPeriod: planAmount(catalog, { unit: `${Money.tokenUnitPrefix}${view.subscription.terms.asset}`, value: view.subscription.terms.amountPerPeriod }),
    charges: view.charges.map((c) => toChargeRecord(view.subscription, c)),
    plan: { name: view.plan.name, amount: planAmount(catalog, view.plan) },
    merchant: { name: view.merchant.name, iconUrl: view.merchant.iconUrl }
  })
  return { catalog, subscriptions, plan, manageUrl, detail, payerView }
})

/** Partner API plan handlers. */
export const PlansHandlers = HandlerGroup.group(
  PaygateApi,
  "plans",
  Effect.fn(function*(handlers) {
    const plans = yield* Plans
    const { plan } = yield* records
    return handlers
      .handle("create", ({ payload }) => Effect.map(Effect.flatMap(partnerAccess, (access) => plans.create(access, payload)), plan))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* plans.list(yield* partnerAccess, { merchantId: query.merchantId, page: yield* pageRequest(query) })
          return { data: page.data.map(plan), nextCursor: page.nextCursor }
        }))
      .handle("get", ({ params }) => Effect.map(Effect.flatMap(partnerAccess, (access) => plans.find(access, params.id)), plan))
      .handle("deactivate", ({ params }) => Effect.map(Effect.flatMap(partnerAccess, (access) => plans.setActive(access, params.id, false)), plan))
      .handle("activate", ({ params }) => Effect.map(Effect.flatMap(partnerAccess, (access) => plans.setActive(access, params.id, true)), plan))
  })
)

/** Partner API subscription handlers. */
export const SubscriptionsHandlers = HandlerGroup.group(
  PaygateApi,
  "subscriptions",
  Effect.fn(function*(handlers) {
    const { detail, subscriptions } = yield* records
    // A merchant's change, answered with the subscription and its charges as they are now.
    const changed = <E>(id: string, apply: (access: PartnerAccess, id: string) => Effect.Effect<unknown, E>) =>
      Effect.gen(function*() {
        const access = yield* partnerAccess
        yield* apply(access, id)
        const view = yield* subscriptions.find(access, id)
        return yield* detail(view.subscription, view.charges)
      })
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const page = yield* subscriptions.list(yield* partnerAccess, {
            merchantId: query.merchantId,
            planId: query.planId,
            page: yield* pageRequest(query)
          })
          return { data: page.data.map(toSubscriptionRecord), nextCursor: page.nextCursor }
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const view = yield* subscriptions.find(yield* partnerAccess, params.id)
          return yield* detail(view.subscription, view.charges)
        }))
      .handle("cancel", ({ params }) => changed(params.id, subscriptions.cancel))
      .handle("pause", ({ params }) => changed(params.id, subscriptions.pause))
      .handle("resume", ({ params }) => changed(params.id, subscriptions.resume))
  })
)

/** Gateway subscribing handlers: the caller's mode must match the plan's, else it does not exist for them. */
export const SubscribeHandlers = HandlerGroup.group(
  PaygateApi,
  "subscribe",
  Effect.fn(function*(handlers) {
    const { catalog, manageUrl, payerView, plan: planRecord, subscriptions } = yield* records
    const mode = Effect.map(CurrentGatewayCaller, (caller) => caller.mode)
    return handlers
      .handle("plan", ({ params }) =>
        Effect.gen(function*() {
          const { assets, merchant, plan } = yield* subscriptions.checkout(yield* mode, params.id)
          const record = planRecord(plan)
          return {
            planId: plan.id,
            name: plan.name,
            merchant: { name: merchant.name, iconUrl: merchant.iconUrl },
            amount: record.amount,
            periodSeconds: plan.periodSeconds,
            trialSeconds: plan.trialSeconds,
            periods: plan.periods,
            active: plan.active,
            assets: assets.map((asset) => ({
              asset: asset.assetId,
              chainId: asset.chainId,
              display: tokenDisplay(asset)
            }))
          }
        }))
      .handle("offer", ({ params, payload }) =>
        Effect.gen(function*() {
          const offered = yield* subscriptions.offer(yield* mode, params.id, payload)
          // Offered tokens come from the catalog.
          const asset = catalog.asset(offered.terms.asset)!
          return {
            offer: offered.offer,
            amountPerPeriod: tokenAmount(asset, offered.terms.amountPerPeriod.toString()),
            start: offered.terms.start,
            receiver: offered.terms.receiver,
            expiresAt: offered.expiresAt,
            typedData: offered.typedData,
            // The permit's verifying contract is Permit2: what the token must let move the payer's tokens.
            permit2: JSON.parse(offered.typedData).domain.verifyingContract as string
          }
        }))
      .handle("subscribe", ({ params, payload }) =>
        Effect.gen(function*() {
          const subscription = yield* subscriptions.subscribe(yield* mode, params.id, payload)
          return { subscription: toSubscriptionRecord(subscription), manageUrl: yield* manageUrl(subscription) }
        }))
      .handle("manage", ({ params, query }) => Effect.map(subscriptions.forPayer(params.id, query.token), payerView))
      .handle("cancel", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* subscriptions.cancelByPayer(params.id, payload.token)
          return payerView(yield* subscriptions.forPayer(params.id, payload.token))
        }))
  })
)
