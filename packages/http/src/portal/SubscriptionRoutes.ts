/**
 * The hosted subscription pages (`{subscribe_url}`, defaulting to `{PUBLIC_URL}/s`):
 *
 * - `GET /s/{planId}`: a plan's checkout (`subscribe.js`): the buyer connects a wallet, lets
 *   Permit2 move the token if need be, signs the permit and subscribes.
 * - `GET /s/manage/{subscriptionId}`: the payer's page (`manage.js`): the charges so far, and
 *   cancelling. The link's token is in its fragment, which browsers never send: the page's script
 *   reads it and asks the gateway with it, so this route knows only the subscription's mode.
 *
 * Like the checkout, they are shells carrying the portal's App-Id of the plan's (subscription's)
 * mode; the scripts read everything else through the gateway API. They cannot be framed.
 *
 * @module
 */
import { Subscriptions } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { PortalApps } from "./PortalApps.ts"
import { managePage, notFoundPage, subscribePage } from "./PortalPages.ts"
import { contentSecurityPolicy, html, pageHeaders } from "./PortalRoutes.ts"

/** The subscription pages' routes. */
export const SubscriptionRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const subscriptions = yield* Subscriptions
  const apps = yield* PortalApps
  const headers = { ...pageHeaders(contentSecurityPolicy("'none'", "'none'")), "x-frame-options": "DENY" }

  const planNotFound = html(
    notFoundPage("Subscription plan not found", "This subscription link is not valid. Check the link the merchant gave you."),
    404,
    headers
  )
  const subscriptionNotFound = html(
    notFoundPage("Subscription not found", "This link is not valid. Open the link you got when you subscribed."),
    404,
    headers
  )

  // A plan exists for the buyers of its own mode only: its mode is looked up to ask for its checkout.
  const planCheckout = (id: string) =>
    Effect.gen(function*() {
      const mode = yield* subscriptions.planModeOf(id)
      if (Option.isNone(mode)) return Option.none()
      return yield* subscriptions.checkout(mode.value, id).pipe(
        Effect.map(Option.some),
        Effect.catchTag("PaymentNotFound", () => Effect.succeedNone)
      )
    })

  yield* router.add(
    "GET",
    "/s/:planId",
    Effect.gen(function*() {
      const { planId } = yield* HttpRouter.params
      const found = yield* planCheckout(planId ?? "")
      if (Option.isNone(found)) return planNotFound
      const { merchant, plan } = found.value
      const config = { planId: plan.id, appId: apps.appIdFor(plan.mode), mode: plan.mode }
      return html(subscribePage(config, `${plan.name} · ${merchant.name}`), 200, headers)
    })
  )

  yield* router.add(
    "GET",
    "/s/manage/:subscriptionId",
    Effect.gen(function*() {
      const { subscriptionId } = yield* HttpRouter.params
      const id = subscriptionId ?? ""
      const mode = yield* subscriptions.modeOf(id)
      if (Option.isNone(mode)) return subscriptionNotFound
      return html(managePage({ subscriptionId: id, appId: apps.appIdFor(mode.value), mode: mode.value }), 200, headers)
    })
  )
})).pipe(Layer.provide(PortalApps.layer))
