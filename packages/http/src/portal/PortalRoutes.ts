/**
 * The hosted pages, served by this service (no CDN, no outside asset):
 *
 * - `GET /checkout/{paymentId}`: the checkout portal (`gatewayUrl` = `{checkout_url}/{paymentId}`,
 *   `{checkout_url}` defaulting to `{PUBLIC_URL}/checkout`), and `GET /checkout/{paymentId}/receipt`,
 *   the transaction its success view shows and the transfers that did not pay exactly (JSON), and
 *   `GET /checkout/{paymentId}/deposit-qr.svg`, the QR code of a deposit option (DepositQr.ts).
 * - `GET /collect?paymentId=…&account=…`: the data collection page (`{data_collection_url}`,
 *   defaulting to `{PUBLIC_URL}/collect`).
 * - `GET /portal/assets/{file}`: their scripts (plain ES modules, no build step), styles and icons.
 *
 * The server looks the payment up to choose the portal's App-Id for its mode and to hand the
 * checkout its redirect targets, mode, order reference and a held payment's deadline (the payment id is the buyer's bearer
 * capability: whoever has it may see its receipt); everything else the page reads through the
 * gateway API, like any wallet. Pages respond with a strict Content-Security-Policy: scripts,
 * styles and connections of this origin only, no inline script or style, Trusted Types enforced
 * (the scripts build the DOM without HTML strings), no referrer (icons on other hosts never see a
 * payment id).
 *
 * @module
 */
import {
  Caip,
  CheckoutAmounts,
  ConfiguredNetworks,
  DepositOptions,
  ExplorerLinks,
  MerchantRepository,
  type Mode,
  type Payment,
  type PaymentId,
  PaymentRepository,
  toPaymentRecord
} from "@paygate/domain"
import { Effect, Layer, Option, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { makeCheckoutTransfers } from "./CheckoutTransfers.ts"
import { makeDepositQr } from "./DepositQr.ts"
import { PortalApps } from "./PortalApps.ts"
import { loadAssets, serveAssets } from "./PortalAssets.ts"
import { assetsPath, checkoutPage, type CheckoutReceipt, collectPage, notFoundPage } from "./PortalPages.ts"
import { CheckoutSettings } from "../settings/CheckoutSettings.ts"
import { WalletOrigins } from "../settings/WalletOrigins.ts"

const paymentIdPattern = /^pay_[A-Za-z0-9]{1,64}$/

/** The policy of a page; `frameSrc` = who the page may embed, `frameAncestors` = who may embed it. */
export const contentSecurityPolicy = (frameSrc: string, frameAncestors: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Merchant, token and wallet icons: HTTPS or inline data images.
    "img-src 'self' data: https:",
    "connect-src 'self'",
    `frame-src ${frameSrc}`,
    `frame-ancestors ${frameAncestors}`,
    "form-action 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'"
  ].join("; ")

/** The headers of a page served with policy `csp`. */
export const pageHeaders = (csp: string) => ({
  "content-security-policy": csp,
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
})

/** An HTML page. */
export const html = (body: string, status: number, headers: Record<string, string>) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers })

// The data collection page may live elsewhere (DATA_COLLECTION_URL): the checkout may frame it.
const collectFrameSource = (dataCollectionUrl: string) => {
  const origin = URL.parse(dataCollectionUrl)?.origin
  return origin !== undefined && /^https?:\/\//.test(origin) ? `'self' ${origin}` : "'self'"
}

/**
 * Who may embed the data collection page and hear its outcome, besides its own origin: the
 * checkout's origin (when `CHECKOUT_URL` names another host) and `WALLET_ORIGINS`.
 */
const collectParents = (checkoutUrl: string, walletOrigins: ReadonlyArray<string>) => {
  const checkout = URL.parse(checkoutUrl)?.origin
  const origins = checkout !== undefined && /^https?:\/\//.test(checkout) ? [checkout, ...walletOrigins] : walletOrigins
  return [...new Set(origins)]
}

/** The checkout and data collection pages and their assets. */
export const PortalRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const payments = yield* PaymentRepository
  const apps = yield* PortalApps
  const { networks } = yield* ConfiguredNetworks
  const explorer = yield* ExplorerLinks
  const transfersOf = yield* makeCheckoutTransfers
  const depositQr = yield* makeDepositQr
  const assets = yield* loadAssets
  const settings = yield* CheckoutSettings
  const checkoutCsp = contentSecurityPolicy(collectFrameSource(settings.dataCollectionUrl), "'none'")
  // Shown inside the checkout's dialog, in a wallet's web view, or in a window a page opened: only
  // the checkout and the configured wallets may embed it, and only they hear how it ended.
  const messageOrigins = collectParents(settings.checkoutUrl, yield* WalletOrigins)
  const collectCsp = contentSecurityPolicy("'none'", ["'self'", ...messageOrigins].join(" "))
  // The checkout asks wallets for accounts on the networks of the payment's mode only.
  const chainIdsFor = (mode: Mode) =>
    networks.filter((network) => network.mode === mode).map((network) => network.chainId)
  const deposits = yield* DepositOptions
  const merchants = yield* MerchantRepository
  const amounts = yield* CheckoutAmounts

  // Where a buyer asks about the order: the merchant's email, and its site (where the redirect goes back to).
  const supportOf = (payment: Payment) =>
    Effect.gen(function*() {
      const merchant = yield* merchants.findById(payment.partnerId, payment.mode, payment.merchantId)
      const site = payment.checkout === null ? undefined : URL.parse(payment.checkout.successUrl)?.origin
      return {
        email: Option.isSome(merchant) ? merchant.value.email : null,
        site: site !== undefined && /^https?:\/\//.test(site) ? site : null
      }
    })

  const findPayment = (id: string | undefined) =>
    id !== undefined && paymentIdPattern.test(id) ? payments.findById(id as PaymentId) : Effect.succeed(Option.none())

  const notFound = (csp: string) =>
    html(
      notFoundPage("Payment not found", "This payment link is not valid. Check the link the merchant gave you."),
      404,
      pageHeaders(csp)
    )

  yield* router.add(
    "GET",
    "/checkout/:paymentId",
    Effect.gen(function*() {
      const { paymentId } = yield* HttpRouter.params
      const found = yield* findPayment(paymentId)
      if (Option.isNone(found)) return notFound(checkoutCsp)
      const payment = found.value
      const page = checkoutPage({
        paymentId: payment.id,
        appId: apps.appIdFor(payment.mode),
        chains: chainIdsFor(payment.mode),
        redirect: payment.checkout === null ? null : { successUrl: payment.checkout.successUrl, errorUrl: payment.checkout.errorUrl },
        mode: payment.mode,
        referenceId: payment.referenceId,
        deposits: yield* deposits.availability(payment),
        tokenAmounts: payment.status === "requires_action"
          ? yield* amounts.estimate(payment, chainIdsFor(payment.mode))
          : [],
        support: yield* supportOf(payment),
        hold: payment.hold === undefined
          ? null
          : { captureBefore: payment.hold.captureBefore, voidAtDeadline: payment.hold.voidAtDeadline, status: payment.status }
      })
      return html(page, 200, { ...pageHeaders(checkoutCsp), "x-frame-options": "DENY" })
    })
  )

  yield* router.add(
    "GET",
    "/checkout/:paymentId/receipt",
    Effect.gen(function*() {
      const { paymentId } = yield* HttpRouter.params
      const found = yield* findPayment(paymentId)
      const headers = { "cache-control": "no-store", "x-content-type-options": "nosniff" }
      if (Option.isNone(found)) {
        return yield* HttpServerResponse.json({ code: "payment_not_found", message: `No payment ${paymentId}.` }, { status: 404, headers })
      }
      const paidWith = amounts.paidWith(found.value)
      const receipt: CheckoutReceipt = {
        transaction: toPaymentRecord(found.value, {}, explorer).transaction,
        transfers: yield* transfersOf(found.value),
        paid: paidWith === null ? null : { amount: paidWith, paidAt: found.value.commitment?.confirmedAt ?? Math.floor(found.value.updatedAt / 1000) }
      }
      return yield* HttpServerResponse.json(receipt, { headers })
    })
  )

  yield* router.add(
    "GET",
    "/checkout/:paymentId/deposit-qr.svg",
    Effect.gen(function*() {
      const { paymentId } = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* depositQr(yield* findPayment(paymentId), new URL(request.url, "http://portal.invalid").searchParams)
    })
  )

  yield* router.add(
    "GET",
    "/collect",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const query = new URL(request.url, "http://portal.invalid").searchParams
      const account = query.get("account") ?? ""
      const found = yield* findPayment(query.get("paymentId") ?? undefined)
      if (Option.isNone(found) || Result.isFailure(Caip.validateAccountId(account))) return notFound(collectCsp)
      const page = collectPage({ paymentId: found.value.id, account, appId: apps.appIdFor(found.value.mode), messageOrigins })
      return html(page, 200, pageHeaders(collectCsp))
    })
  )

  yield* serveAssets(router, assetsPath, assets)
})).pipe(Layer.provide(PortalApps.layer))
