/**
 * The HTML shells of the hosted pages. Each carries its configuration as a JSON data block (not
 * executed, so the strict Content-Security-Policy allows it) and loads one module from
 * `/portal/assets/`; the modules render everything else with DOM calls (no HTML strings).
 *
 * @module
 */

import type { Amount, DepositAvailability, PaymentStatus } from "@paygate/domain"
import type { CheckoutTransfer } from "./CheckoutTransfers.ts"

/** Where the pages' static files are served. */
export const assetsPath = "/portal/assets"

/** Text safe inside HTML content and quoted attributes. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

// JSON inside <script>: `<` escaped so that no `</script>` or `<!--` can end or alter the block.
const jsonBlock = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c")

/**
 * A page of this service: its configuration as a JSON data block, one module script, its style
 * sheets, all from `assets` (default: the portal's, with `portal.css`).
 */
export const shell = (options: {
  readonly title: string
  readonly config?: unknown
  readonly script?: string
  readonly body: string
  readonly assets?: string
  readonly styles?: ReadonlyArray<string>
}) => {
  const assets = options.assets ?? assetsPath
  const styles = (options.styles ?? ["portal.css"]).map((style) => `<link rel="stylesheet" href="${assets}/${style}">\n`).join("")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="${assets}/favicon.svg" type="image/svg+xml">
${styles}${options.config === undefined ? "" : `<script type="application/json" id="portal-config">${jsonBlock(options.config)}</script>\n`}${
    options.script === undefined ? "" : `<script type="module" src="${assets}/${options.script}"></script>\n`
  }</head>
<body>
${options.body}
</body>
</html>
`
}

// `purpose`: what the page cannot do without its script ("to connect your wallet").
const loadingFor = (purpose: string) => `<p class="loading" role="status"><span class="spinner" aria-hidden="true"></span>Loading…</p>
<noscript><p class="notice">This page needs JavaScript ${purpose}.</p></noscript>`
const loading = loadingFor("to connect your wallet")

/** Configuration of the checkout page, read by `checkout-state.js`. */
export interface CheckoutConfig {
  readonly paymentId: string
  /** The portal's public App-Id for the payment's mode. */
  readonly appId: string
  /** CAIP-2 ids of the chains the service collects on: the accounts the page asks options for. */
  readonly chains: ReadonlyArray<string>
  /** Both redirect targets (valid HTTPS), or `null`: then the page shows generic terminal views. */
  readonly redirect: { readonly successUrl: string; readonly errorUrl: string } | null
  /** `sandbox` payments carry a visible "Test mode" badge. */
  readonly mode: "live" | "sandbox"
  /** The merchant's order reference, shown on the receipt. */
  readonly referenceId: string
  /**
   * Paying from an exchange or another wallet: `offered` (a chain has a deposit factory), `needsData`
   * (the payment requires buyer data, so the page says why it is not offered), `none`.
   */
  readonly deposits: DepositAvailability
  /**
   * What the buyer would pay in each token of the mode's networks, shown before a wallet is
   * connected (`floating`: a market rate, final when the buyer's option is quoted). Empty once
   * the payment no longer waits.
   */
  readonly tokenAmounts: ReadonlyArray<{ readonly amount: Amount; readonly floating: boolean }>
  /** Who answers the buyer's questions: the merchant's email and site (its redirect's origin), when known. */
  readonly support: { readonly email: string | null; readonly site: string | null }
  /** A held payment (`capture: "manual"`): what the page tells the buyer about the hold; `null` for an ordinary one. */
  readonly hold: CheckoutHold | null
}

/**
 * A held payment as its checkout explains it. The gateway API shows `authorized` as `succeeded` and
 * `voided` / `reclaimed` as `failed`; the page needs the merchant's status to say what happened.
 */
export interface CheckoutHold {
  /** Unix seconds: what the merchant has not captured by then goes back (or may be reclaimed). */
  readonly captureBefore: number
  /** `true`: the service gives it back at the deadline; `false`: the buyer reclaims it after. */
  readonly voidAtDeadline: boolean
  /** The payment's status as its merchant sees it when the page loaded (`authorized`, `voided`, …). */
  readonly status: PaymentStatus
}

/**
 * `GET {checkout}/{paymentId}/receipt`, read by the checkout once the payment is final (and while
 * it waits for a deposit): its transaction, with a link when the chain's configuration names a
 * block explorer, and the transfers recorded against it (too little, too much, too late).
 */
export interface CheckoutReceipt {
  readonly transaction: { readonly chainId: string; readonly hash: string; readonly explorerUrl: string | null } | null
  readonly transfers: ReadonlyArray<CheckoutTransfer>
  /** A succeeded payment: the token amount it was paid with, and when (Unix seconds). */
  readonly paid: { readonly amount: Amount; readonly paidAt: number } | null
}

/** The checkout portal of one payment. */
export const checkoutPage = (config: CheckoutConfig) =>
  shell({
    title: "Checkout",
    config,
    script: "checkout.js",
    body: `<div class="page">
<header class="summary" id="summary" hidden></header>
<main id="view" class="card" tabindex="-1" data-view="loading">
${loading}
</main>
<footer class="footer" id="footer"></footer>
</div>
<dialog id="collect-dialog" class="collect-dialog" aria-labelledby="collect-dialog-title">
<div class="collect-dialog-bar"><h2 id="collect-dialog-title">Your information</h2><button type="button" class="button secondary small" id="collect-dialog-close">Close</button></div>
</dialog>`
  })

/** Configuration of the data collection page, read by `collect.js`. */
export interface CollectConfig {
  readonly paymentId: string
  readonly account: string
  readonly appId: string
  /** The origins besides its own that may embed the page and receive its `IC_COMPLETE` / `IC_ERROR`. */
  readonly messageOrigins: ReadonlyArray<string>
}

/** The data collection page of one payment and account. */
export const collectPage = (config: CollectConfig) =>
  shell({
    title: "Your information",
    config,
    script: "collect.js",
    body: `<div class="page">
<main id="view" class="card" tabindex="-1" data-view="loading">
${loading}
</main>
</div>`
  })

/** Configuration of a plan's checkout page, read by `subscribe.js`. */
export interface SubscribeConfig {
  readonly planId: string
  /** The portal's public App-Id for the plan's mode. */
  readonly appId: string
  /** `sandbox` plans carry a visible "Test mode" badge. */
  readonly mode: "live" | "sandbox"
}

/** Configuration of a payer's subscription page, read by `manage.js` (the link's token is in the URL's fragment). */
export interface ManageConfig {
  readonly subscriptionId: string
  /** The portal's public App-Id for the subscription's mode. */
  readonly appId: string
  readonly mode: "live" | "sandbox"
}

// The subscription pages: a header the script fills (merchant, plan, price) above its views.
const subscriptionShell = (options: { readonly title: string; readonly config: unknown; readonly script: string; readonly purpose: string }) =>
  shell({
    title: options.title,
    config: options.config,
    script: options.script,
    styles: ["portal.css", "subscription.css"],
    body: `<div class="page subscription-page">
<header class="summary" id="summary" hidden></header>
<main id="view" class="card" tabindex="-1" data-view="loading">
${loadingFor(options.purpose)}
</main>
</div>`
  })

/** The checkout of one plan (`title`: the plan's and its merchant's names). */
export const subscribePage = (config: SubscribeConfig, title: string) =>
  subscriptionShell({ title, config, script: "subscribe.js", purpose: "to connect your wallet" })

/** The payer's page of one subscription. */
export const managePage = (config: ManageConfig) =>
  subscriptionShell({ title: "Your subscription", config, script: "manage.js", purpose: "to show your subscription" })

/** What an unknown payment or a malformed link shows. */
export const notFoundPage = (heading: string, text: string) =>
  shell({
    title: heading,
    body: `<div class="page">
<main id="view" class="card" data-view="not-found">
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(text)}</p>
</main>
</div>`
  })
