/**
 * The refund claim page (`/r/{token}`): rendered on the server as plain HTML, no script, every
 * text escaped. The buyer enters an address, confirms it on a second step, and the claim posts.
 *
 * @module
 */
import type { ClaimView } from "@paygate/domain"
import { formatFiat, merchantHeader } from "./LinkPage.ts"
import { escapeHtml, shell } from "./PortalPages.ts"

/** Which step the page shows. */
export type ClaimStep =
  | { readonly _tag: "Enter"; readonly entered?: string; readonly error?: string }
  | { readonly _tag: "Review"; readonly address: string }
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Closed" }

// Token base units as a decimal, exactly (no float), trailing zeros dropped: 12500000 (6 decimals) → "12.5".
const tokenDecimal = (value: bigint, decimals: number) => {
  if (decimals === 0) return value.toString()
  const digits = value.toString().padStart(decimals + 1, "0")
  const fraction = digits.slice(-decimals).replace(/0+$/, "")
  return `${digits.slice(0, -decimals)}${fraction === "" ? "" : `.${fraction}`}`
}

/** "12.5 USDC on Base": what the refund sends, and where. */
export const tokenText = (view: ClaimView) =>
  view.asset === undefined
    ? `${view.refund.value} base units of ${view.assetId}`
    : `${tokenDecimal(view.refund.value, view.asset.decimals)} ${view.asset.symbol} on ${view.asset.networkName}`

/** `0xAbCd…12cd`: enough to recognise an address in a sentence (the whole one is shown beside it). */
export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`

const addressOf = (recipient: string | null) => recipient?.split(":").at(-1) ?? ""

const dateText = (millis: number) => new Date(millis).toUTCString().replace("GMT", "UTC")

const network = (view: ClaimView) => view.asset?.networkName ?? view.assetId.split("/")[0] ?? ""

const enterForm = (view: ClaimView, token: string, step: { readonly entered?: string; readonly error?: string }) => {
  const describedBy = `claim-address-help${step.error === undefined ? "" : " claim-error"}`
  return `<form method="post" action="/r/${escapeHtml(token)}" class="claim-form" novalidate>
<input type="hidden" name="intent" value="review">
<label class="field" for="claim-address">Your wallet address on ${escapeHtml(network(view))}</label>
<input class="input address" id="claim-address" name="address" autocomplete="off" autocapitalize="off" spellcheck="false" required
 placeholder="0x…" value="${escapeHtml(step.entered ?? "")}" aria-describedby="${describedBy}"${step.error === undefined ? "" : ` aria-invalid="true"`}>
<p class="muted help" id="claim-address-help">An address of a wallet you control that can receive ${escapeHtml(view.asset?.symbol ?? "this token")} on ${escapeHtml(network(view))}.</p>
${step.error === undefined ? "" : `<p class="alert" id="claim-error" role="alert">${escapeHtml(step.error)}</p>\n`}<div class="actions"><button type="submit" class="button primary" id="claim-continue">Continue</button></div>
</form>
<p class="muted help">This link works until ${escapeHtml(dateText(view.claim.expiresAt))}.</p>`
}

const reviewForm = (view: ClaimView, token: string, address: string) =>
  `<h2 id="claim-question">Send ${escapeHtml(tokenText(view))} to ${escapeHtml(shortAddress(address))}?</h2>
<dl class="receipt claim-facts"><dt>To</dt><dd class="address" id="claim-recipient">${escapeHtml(address)}</dd></dl>
<p class="muted help">Check the whole address: a refund sent to a wrong address cannot be brought back.</p>
<form method="post" action="/r/${escapeHtml(token)}" class="claim-form">
<input type="hidden" name="address" value="${escapeHtml(address)}">
<div class="actions"><button type="submit" name="intent" value="send" class="button primary" id="claim-send">Send my refund</button>
<button type="submit" name="intent" value="edit" class="button secondary" id="claim-edit">Change the address</button></div>
</form>`

// What a claimed or expired link says (the address on a line of its own); `justClaimed`: the response to the claim itself.
const closedBlock = (view: ClaimView, justClaimed: boolean) => {
  const address = addressOf(view.claim.recipient)
  const [heading, text, after] = view.state === "expired"
    ? ["This refund link has expired", `Ask ${view.merchantName} for a new link: they can send one at any time.`, ""]
    : view.refund.status === "completed"
    ? ["Refund sent", `${tokenText(view)} was sent to`, ""]
    : view.refund.status === "failed"
    ? ["The refund could not be sent", "Sending it failed to", `${view.merchantName} can see it and retry it.`]
    : [justClaimed ? "Refund on its way" : "This refund was claimed", `${tokenText(view)} is being sent to`, "It arrives in a few minutes."]
  const used = !justClaimed && view.state === "claimed" ? `<p class="muted help">This link has been used; it cannot be used again.</p>` : ""
  return `<div class="closed ${view.state}" id="claim-closed" role="status">${
    view.refund.status === "completed" ? `<span class="outcome paid" aria-hidden="true"></span>` : ""
  }<h2>${escapeHtml(heading)}</h2><p>${escapeHtml(text)}</p>${
    address === "" ? "" : `<p class="address" id="claim-sent-to">${escapeHtml(address)}</p>`
  }${after === "" ? "" : `<p>${escapeHtml(after)}</p>`}${used}</div>`
}

/** The claim page of `view` at `step`. */
export const claimPage = (view: ClaimView, token: string, step: ClaimStep) => {
  const action = step._tag === "Enter"
    ? enterForm(view, token, step)
    : step._tag === "Review"
    ? reviewForm(view, token, step.address)
    : closedBlock(view, step._tag === "Claimed")
  return shell({
    title: `Your refund · ${view.merchantName}`,
    styles: ["portal.css", "link.css", "claim.css"],
    body: `<div class="page link-page claim-page">
${merchantHeader({ name: view.merchantName, iconUrl: view.merchantIconUrl }, view.mode)}
<main class="card" id="view" data-view="${step._tag === "Enter" ? "enter" : step._tag === "Review" ? "review" : view.state}">
<h1 id="claim-title">Your refund from ${escapeHtml(view.merchantName)}</h1>
<p class="amount" id="claim-amount">${escapeHtml(formatFiat(view.refund.currency, view.refund.amount))}</p>
<p class="muted token-line" id="claim-token">${escapeHtml(tokenText(view))}</p>
${action}
</main>
</div>`
  })
}
