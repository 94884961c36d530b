/**
 * The refund claim page (docs/refunds.md, "Refund to an address the buyer chooses"):
 *
 * - `GET /r/{token}`: the page of a claim link (ClaimPage.ts): the refund and the address form;
 *   410 once the link was used or expired, 404 for a token that is no current link.
 * - `POST /r/{token}`: the form's steps, by `intent`: `review` checks the address and asks to
 *   confirm it, `edit` goes back to the form, `send` claims (the use case's claim is one-time).
 *
 * The token in the path is the buyer's capability. Forms post to this origin only (the page's
 * `form-action`), and a POST a browser says came from another site is refused, as the dashboard
 * refuses one (server/CrossSite.ts); the page cannot be framed.
 *
 * @module
 */
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { type ClaimView, RefundClaims } from "@paygate/domain"
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { isCrossSite, originOf } from "../server/CrossSite.ts"
import { claimPage, type ClaimStep } from "./ClaimPage.ts"
import { notFoundPage } from "./PortalPages.ts"
import { contentSecurityPolicy, html, pageHeaders } from "./PortalRoutes.ts"

// 32 random bytes in base64url.
const tokenPattern = /^[A-Za-z0-9_-]{43}$/

/** The claim page's routes. */
export const ClaimRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const claims = yield* RefundClaims
  const settings = yield* CheckoutSettings
  const publicOrigin = originOf(settings.refundClaimUrl)
  const headers = {
    ...pageHeaders(contentSecurityPolicy("'none'", "'none'").replace("form-action 'none'", "form-action 'self'")),
    "x-frame-options": "DENY",
    // Its own forms must carry their Origin (under no-referrer a browser sends "null", which reads as another site's);
    // no other site ever sees the page's address, which holds the token.
    "referrer-policy": "same-origin"
  }

  const notFound = html(notFoundPage("Refund link not found", "This refund link is not valid. Check the link the merchant sent you."), 404, headers)
  const refused = html(
    notFoundPage("Open the link again", "This form was sent from another site. Open the refund link the merchant sent you and try again."),
    403,
    headers
  )
  const show = (view: ClaimView, token: string, step: ClaimStep, status = 200) => html(claimPage(view, token, step), status, headers)
  // A link that can no longer claim: 410, saying whether it was used (and how its refund stands) or expired.
  const closed = (view: ClaimView, token: string) => show(view, token, { _tag: "Closed" }, 410)

  const find = (token: string | undefined) =>
    token !== undefined && tokenPattern.test(token) ? Effect.map(claims.open(token), Option.map((view) => ({ view, token }))) : Effect.succeed(Option.none())

  yield* router.add(
    "GET",
    "/r/:token",
    Effect.gen(function*() {
      const found = yield* find((yield* HttpRouter.params).token)
      if (Option.isNone(found)) return notFound
      const { token, view } = found.value
      return view.state === "open" ? show(view, token, { _tag: "Enter" }) : closed(view, token)
    })
  )

  yield* router.add(
    "POST",
    "/r/:token",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (isCrossSite(request.headers, publicOrigin)) return refused
      const found = yield* find((yield* HttpRouter.params).token)
      if (Option.isNone(found)) return notFound
      const { token, view } = found.value
      if (view.state !== "open") return closed(view, token)
      const form = new URLSearchParams(yield* Effect.orElseSucceed(request.text, () => ""))
      // What the buyer typed, as far as the page shows it again.
      const entered = (form.get("address") ?? "").slice(0, 200)
      const refusedAddress = (error: { readonly message: string }) =>
        Effect.succeed(show(view, token, { _tag: "Enter", entered, error: error.message }, 400))
      switch (form.get("intent")) {
        case "review":
          return yield* claims.check(entered).pipe(
            Effect.map((address) => show(view, token, { _tag: "Review", address })),
            Effect.catchTag("ParamsValidation", refusedAddress)
          )
        case "send":
          return yield* claims.claim(token, entered).pipe(
            Effect.flatMap((outcome) => {
              if (outcome._tag === "Missing") return Effect.succeed(notFound)
              // The page of the refund as it now stands: claimed by this request, or by another one first.
              return Effect.map(claims.open(token), (after) =>
                Option.isNone(after)
                  ? notFound
                  : outcome._tag === "Claimed"
                  ? show(after.value, token, { _tag: "Claimed" })
                  : closed(after.value, token))
            }),
            Effect.catchTag("ParamsValidation", refusedAddress)
          )
        default:
          return show(view, token, { _tag: "Enter", entered })
      }
    })
  )
}))
