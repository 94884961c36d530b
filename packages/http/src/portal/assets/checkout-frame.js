// @ts-check
/**
 * The checkout's frame: the header (merchant, amount, token amounts, time left), the footer
 * (cancel, the merchant's support) and the plain views shown between steps (working, processing,
 * an error the page cannot get past).
 *
 * @module
 */
import { h, replace } from "./dom.js"
import { formatAmount, formatClock, formatDuration } from "./format.js"
import { merchantAvatar, showBusy, showError } from "./views.js"
import { holdNote } from "./checkout-hold.js"
import { config, footer, main, merchantName, moves, nowSeconds, state, summary } from "./checkout-state.js"

/** @typedef {import("./checkout-state.js").PaymentInfo} PaymentInfo */

/** @param {boolean} value */
export function setBusy(value) {
  state.busy = value
  renderFooter()
}

function renderSummary() {
  const info = state.info
  if (info === null) return
  const merchant = info.merchant
  const waiting = info.status === "requires_action" && !state.finished
  // Until a wallet's options or a deposit quote it exactly, what each token would cost now.
  const tokens = waiting ? config.tokenAmounts : []
  replace(
    summary,
    h(
      "div",
      { class: "merchant" },
      merchantAvatar(merchant),
      h("div", { class: "merchant-text" },
        h("p", { class: "merchant-name" }, merchant.name),
        h("p", { class: "muted order-reference" }, "Order ", h("span", { class: "reference" }, config.referenceId))),
      config.mode === "sandbox" ? h("span", { class: "badge test-mode", title: "A sandbox payment: no real funds move" }, "Test mode") : null
    ),
    h("p", { class: "amount", "aria-label": `Amount: ${formatAmount(info.amount)}` }, formatAmount(info.amount)),
    tokens.length === 0 ? null : h("p", { class: "token-amounts" },
      tokens.flatMap((t, i) => [
        i === 0 ? null : h("span", { class: "muted" }, " or "),
        h("span", { class: "token-amount" }, `${t.floating ? "≈ " : ""}${formatAmount(t.amount)}`),
        t.amount.display.networkName ? h("span", { class: "muted" }, ` on ${t.amount.display.networkName}`) : null
      ])),
    waiting
      ? h("p", { class: "time-left", role: "timer", "aria-live": "off" },
        "Time left ", h("span", { class: "strong", "data-deadline": info.expiresAt }, formatDuration(info.expiresAt - nowSeconds())),
        ` · until ${formatClock(info.expiresAt, nowSeconds())}`)
      : null,
    // After the time to pay, so that its clock time and the hold's deadline are not read as one.
    waiting ? holdNote() : null
  )
  summary.hidden = false
}

/** Where the buyer asks about the order: the merchant's email, else its site. */
function supportLink() {
  const { email, site } = config.support
  const href = email !== null ? `mailto:${email}?subject=${encodeURIComponent(`Order ${config.referenceId}`)}` : site
  if (href === null) return null
  return h("p", { class: "support muted" }, "Questions about this order? ", h("a", { href, rel: "noopener noreferrer" }, `Contact ${merchantName()}`))
}

export function renderFooter() {
  const canCancel = state.info?.status === "requires_action" && !state.finished && !state.busy && main.dataset["view"] !== "cancel"
  replace(
    footer,
    canCancel ? h("button", { type: "button", class: "button link", onclick: () => moves.showCancel() }, "Cancel payment") : null,
    supportLink()
  )
}

/** @param {PaymentInfo} next */
export function updateInfo(next) {
  state.info = next
  renderSummary()
  renderFooter()
}

/**
 * @param {string} title
 * @param {string} text
 * @param {HTMLElement} [steps] the steps of a payment asking the wallet more than once
 */
export function showWorking(title, text, steps) {
  showBusy("working", title, text, steps)
  renderFooter()
}

export function showProcessing() {
  showBusy("processing", state.path === "deposit" ? "Your transfer arrived" : "Processing your payment",
    "The network is confirming your payment. This page updates by itself.")
  renderFooter()
}

/** @param {string} message */
export function showFatal(message) {
  state.finished = true
  showError(message)
  renderFooter()
}
