/**
 * The page of a payment link (`/l/{linkId}`): rendered on the server as plain HTML, no script, every
 * text of the partner's escaped. "Pay" posts a form; the server responds with the hosted checkout.
 *
 * @module
 */
import { fiatAmount, type LinkView, type Merchant } from "@paygate/domain"
import { escapeHtml, shell } from "./PortalPages.ts"

/** Minor units as a decimal amount with its currency code, exactly (no float). */
export const formatFiat = (currency: string, value: bigint) => {
  const decimals = fiatAmount(currency, value).display.decimals
  if (decimals === 0) return `${value} ${currency}`
  const digits = value.toString().padStart(decimals + 1, "0")
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)} ${currency}`
}

/** What the page says of a link that takes no payment now. */
export const closedText = {
  paid: ["Paid", "This invoice has been paid. Thank you."],
  inactive: ["This link is not active", "The merchant has turned this payment link off. Ask them for a new one."],
  expired: ["This link has expired", "This payment link can no longer be used. Ask the merchant for a new one."],
  limit_reached: ["No longer available", "This payment link has taken all the payments it allows."],
  busy: ["Please try again later", "Every payment this link allows is already under way. Try again in a few minutes."]
} as const

/** Why the page shows no "Pay". */
export type ClosedReason = keyof typeof closedText

/** What the page of one link shows. */
export interface LinkPageInput {
  readonly view: LinkView
  readonly merchant: Merchant
  /** The link's own address (shown and encoded in the QR code). */
  readonly url: string
  readonly visitToken: string
  readonly closed: ClosedReason | null
  /** An entered amount that was refused, and why. */
  readonly error?: { readonly message: string; readonly entered: string } | undefined
}

const decimalOf = (currency: string, value: bigint) => formatFiat(currency, value).split(" ")[0]!

const invoiceBlock = (view: LinkView) => {
  const invoice = view.link.invoice
  if (invoice === null) return ""
  const { currency } = view.link
  const facts = [
    `<dt>Invoice</dt><dd>${escapeHtml(invoice.reference)}</dd>`,
    invoice.dueDate === null ? "" : `<dt>Due</dt><dd>${escapeHtml(invoice.dueDate)}</dd>`,
    invoice.buyerEmail === null ? "" : `<dt>Billed to</dt><dd>${escapeHtml(invoice.buyerEmail)}</dd>`
  ].join("")
  const lines = invoice.lines.length === 0 ? "" : `<table class="lines">
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>${
    invoice.lines.map((line) =>
      `<tr><td>${escapeHtml(line.description)}</td><td class="num">${line.quantity}</td><td class="num">${
        escapeHtml(formatFiat(currency, line.unitValue * BigInt(line.quantity)))
      }</td></tr>`
    ).join("")
  }</tbody>
</table>`
  return `<dl class="receipt invoice">${facts}</dl>${lines}`
}

const amountBlock = (input: LinkPageInput) => {
  const { link } = input.view
  if (link.value !== null) return `<p class="amount" id="link-amount">${escapeHtml(formatFiat(link.currency, link.value))}</p>`
  if (input.closed !== null) return ""
  const bounds = [
    link.minValue === null ? null : `at least ${formatFiat(link.currency, link.minValue)}`,
    link.maxValue === null ? null : `at most ${formatFiat(link.currency, link.maxValue)}`
  ].filter((text) => text !== null).join(", ")
  const step = fiatAmount(link.currency, 0n).display.decimals
  return `<label class="field" for="link-amount-input">Amount (${escapeHtml(link.currency)})</label>
<input class="input" id="link-amount-input" name="amount" inputmode="decimal" autocomplete="off" required
 placeholder="${link.minValue === null ? (step === 0 ? "100" : "10." + "0".repeat(step)) : escapeHtml(decimalOf(link.currency, link.minValue))}"
 value="${escapeHtml(input.error?.entered ?? "")}" aria-describedby="link-amount-help${input.error === undefined ? "" : " link-error"}">
${bounds === "" ? "" : `<p class="muted help" id="link-amount-help">Enter ${escapeHtml(bounds)}.</p>`}`
}

// The page's own address and its QR code, to open it on a phone or pass it on.
const shareBlock = (id: string, url: string) => `<section class="card share" aria-labelledby="share-title">
<h2 id="share-title">Pay on another device</h2>
<img class="qr" src="/l/${escapeHtml(id)}/qr.svg" alt="QR code of this page's address" width="160" height="160">
<p class="link-url"><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>
</section>`

/** The header of a merchant's public page: its icon (or initial), its name and, in sandbox, a "Test mode" badge. */
export const merchantHeader = (merchant: { readonly name: string; readonly iconUrl: string | null }, mode: "live" | "sandbox") => {
  const icon = merchant.iconUrl === null
    ? `<span class="merchant-icon avatar" aria-hidden="true">${escapeHtml([...merchant.name.trim()][0]?.toUpperCase() ?? "?")}</span>`
    : `<img class="merchant-icon" src="${escapeHtml(merchant.iconUrl)}" alt="">`
  return `<header class="summary merchant">${icon}<p><span class="merchant-name">${escapeHtml(merchant.name)}</span>${
    mode === "sandbox" ? ` <span class="badge test-mode">Test mode</span>` : ""
  }</p></header>`
}

/** The link's page. */
export const linkPage = (input: LinkPageInput) => {
  const { link } = input.view
  const closed = input.closed === null ? null : closedText[input.closed]
  const action = closed !== null
    ? `<div class="closed ${input.closed}" id="link-closed" role="status">${input.closed === "paid" ? `<span class="outcome paid" aria-hidden="true"></span>` : ""}<h2>${closed[0]}</h2><p>${closed[1]}</p></div>`
    : `<form method="post" action="/l/${escapeHtml(link.id)}/pay" class="pay-form">
<input type="hidden" name="visit" value="${escapeHtml(input.visitToken)}">
${link.value === null ? amountBlock(input) : ""}${input.error === undefined ? "" : `<p class="alert" id="link-error" role="alert">${escapeHtml(input.error.message)}</p>`}
<div class="actions"><button type="submit" class="button primary" id="link-pay">Pay</button></div>
</form>`
  return shell({
    title: `${input.closed === "paid" ? "Paid: " : ""}${link.title} · ${input.merchant.name}`,
    styles: ["portal.css", "link.css"],
    body: `<div class="page link-page">
${merchantHeader(input.merchant, link.mode)}
<main class="card" id="view" data-view="${input.closed ?? "open"}">
<h1 id="link-title">${escapeHtml(link.title)}</h1>
${link.value !== null ? amountBlock(input) : ""}${invoiceBlock(input.view)}
${action}
${link.expiresAt === null || input.closed !== null ? "" : `<p class="muted help">Open until ${escapeHtml(new Date(link.expiresAt * 1000).toUTCString().replace("GMT", "UTC"))}.</p>`}
</main>
${input.closed === null ? shareBlock(link.id, input.url) : ""}
</div>`
  })
}
