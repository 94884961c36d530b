/**
 * The public pages of payment links (docs/payment-links.md):
 *
 * - `GET /l/{linkId}`: the link's page (LinkPage.ts). It gives the visit a token, in an HttpOnly
 *   cookie of the link's path and in the form: the payment a visit opens is found again by it, so a
 *   reload, a double click or a resubmitted form never opens a second one.
 * - `POST /l/{linkId}/pay`: opens (or finds) the visit's payment and responds `303` to its hosted checkout.
 * - `GET /l/{linkId}/qr.svg`: the QR code of the page's address.
 *
 * @module
 */
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { PaymentLinks } from "@paygate/domain"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import { type ClosedReason, linkPage } from "./LinkPage.ts"
import { notFoundPage } from "./PortalPages.ts"
import { contentSecurityPolicy, html, pageHeaders } from "./PortalRoutes.ts"
import { qrSvg } from "./QrSvg.ts"

const visitCookie = "paygate_visit"
const tokenPattern = /^[A-Za-z0-9_-]{22,64}$/
// A visit lasts a day: long enough to come back to a checkout left open, short enough to start afresh.
const visitSeconds = 86_400

/** The link pages' routes. */
export const LinkRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const links = yield* PaymentLinks
  const settings = yield* CheckoutSettings
  const checkoutOrigin = URL.parse(settings.checkoutUrl)?.origin
  // The form posts here, and its response goes on to the checkout (form-action covers that redirect).
  const csp = contentSecurityPolicy("'none'", "'none'").replace(
    "form-action 'none'",
    `form-action 'self'${checkoutOrigin !== undefined && /^https?:/.test(checkoutOrigin) ? ` ${checkoutOrigin}` : ""}`
  )
  const headers = { ...pageHeaders(csp), "x-frame-options": "DENY" }
  const secure = settings.linkUrl.startsWith("https:")
  const cookieFor = (linkId: string, token: string) =>
    [`${visitCookie}=${token}`, "HttpOnly", "SameSite=Lax", `Path=/l/${linkId}`, `Max-Age=${visitSeconds}`, ...(secure ? ["Secure"] : [])]
      .join("; ")

  const notFound = html(
    notFoundPage("Payment link not found", "This payment link is not valid. Check the link the merchant gave you."),
    404,
    headers
  )

  const render = (id: string, options: { readonly token: string; readonly status?: number; readonly closed?: ClosedReason; readonly error?: { readonly message: string; readonly entered: string } }) =>
    links.open(id).pipe(
      Effect.map((view) =>
        html(
          linkPage({
            view,
            merchant: view.merchant,
            url: `${settings.linkUrl}/${view.link.id}`,
            visitToken: options.token,
            closed: options.closed ?? (view.state === "open" ? null : view.state),
            error: options.error
          }),
          options.status ?? 200,
          headers
        ).pipe(HttpServerResponse.setHeader("set-cookie", cookieFor(view.link.id, options.token)))
      ),
      Effect.catchTag("PaymentNotFound", () => Effect.succeed(notFound))
    )

  const tokenOf = (request: HttpServerRequest.HttpServerRequest, form?: URLSearchParams) => {
    const cookie = request.cookies[visitCookie]
    if (cookie !== undefined && tokenPattern.test(cookie)) return cookie
    const posted = form?.get("visit")
    return posted !== undefined && posted !== null && tokenPattern.test(posted) ? posted : undefined
  }

  yield* router.add(
    "GET",
    "/l/:linkId",
    Effect.gen(function*() {
      const { linkId } = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* render(linkId ?? "", { token: tokenOf(request) ?? randomBytes(18).toString("base64url") })
    })
  )

  yield* router.add(
    "POST",
    "/l/:linkId/pay",
    Effect.gen(function*() {
      const { linkId } = yield* HttpRouter.params
      const id = linkId ?? ""
      const request = yield* HttpServerRequest.HttpServerRequest
      const form = new URLSearchParams(yield* Effect.orElseSucceed(request.text, () => ""))
      const token = tokenOf(request, form)
      // Without its visit's token a "Pay" cannot be told from a repeat: the page is shown again with one.
      if (token === undefined) return yield* render(id, { token: randomBytes(18).toString("base64url"), status: 400 })
      const entered = form.get("amount") ?? undefined
      const outcome = yield* links.pay(id, token, entered).pipe(
        Effect.map((result) => ({ ...result, message: "" })),
        Effect.catchTag("ParamsValidation", (error) => Effect.succeed({ _tag: "Invalid" as const, message: error.message })),
        Effect.catchTag("PaymentNotFound", () => Effect.succeed({ _tag: "Missing" as const, message: "" }))
      )
      switch (outcome._tag) {
        case "Payment":
          return HttpServerResponse.empty({ status: 303, headers: { location: `${settings.checkoutUrl}/${outcome.paymentId}`, "cache-control": "no-store" } })
        case "Closed":
          return yield* render(id, { token, status: 409, closed: outcome.state })
        case "Invalid":
          return yield* render(id, { token, status: 400, error: { message: outcome.message, entered: (entered ?? "").slice(0, 64) } })
        case "Missing":
          return notFound
      }
    })
  )

  yield* router.add(
    "GET",
    "/l/:linkId/qr.svg",
    Effect.gen(function*() {
      const { linkId } = yield* HttpRouter.params
      return yield* links.open(linkId ?? "").pipe(
        Effect.flatMap((view) => qrSvg(`${settings.linkUrl}/${view.link.id}`)),
        Effect.map((svg) =>
          HttpServerResponse.text(svg, {
            contentType: "image/svg+xml",
            headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
          })
        ),
        Effect.catchTag("PaymentNotFound", () => Effect.succeed(HttpServerResponse.empty({ status: 404 })))
      )
    })
  )
}))
