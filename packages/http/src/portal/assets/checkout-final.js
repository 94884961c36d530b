// @ts-check
/**
 * The end of a payment: following its status until it is final, the outcome's view (a receipt
 * when it was paid, notes on transfers that did not pay exactly) and, when the payment has its
 * redirect URLs, the countdown back to the merchant.
 *
 * @module
 */
import { h, replace, showView } from "./dom.js"
import { formatAmount, formatDateTime } from "./format.js"
import { transferNotes } from "./deposit.js"
import { GatewayError } from "./gateway.js"
import { config, gateway, isFinal, merchantName, nowSeconds, paymentId, sleep, state } from "./checkout-state.js"
import { renderFooter, showProcessing, updateInfo } from "./checkout-frame.js"
import { heldOutcome } from "./checkout-hold.js"

/** @typedef {import("./checkout-state.js").Status} Status */
/** @typedef {import("./checkout-state.js").Receipt} Receipt */

/** Redirect countdown (service-spec "Buyer redirect"). */
const redirectSeconds = 3
/** The longest a status request waits for a change. */
const longPollMs = 25_000

/**
 * A link back to the merchant with the payment id, when the payment has its redirect URLs.
 *
 * @param {"successUrl" | "errorUrl"} which
 * @returns {string | null}
 */
function returnUrl(which) {
  if (config.redirect === null) return null
  const url = new URL(config.redirect[which])
  url.searchParams.set("payment_id", paymentId)
  return url.href
}

/**
 * The visible countdown, then the redirect.
 *
 * @param {string} url
 */
function countdown(url) {
  let left = redirectSeconds
  const number = h("span", { class: "countdown-number" }, String(left))
  const timer = setInterval(() => {
    left -= 1
    number.textContent = String(Math.max(0, left))
    if (left <= 0) {
      clearInterval(timer)
      window.location.assign(url)
    }
  }, 1000)
  return [
    h("p", { class: "countdown", role: "status" }, `Returning you to ${merchantName()} in `, number, " s…"),
    h("a", { class: "button primary", href: url }, "Return now")
  ]
}

/** @param {AbortSignal} [signal] */
export async function fetchReceipt(signal) {
  const response = await fetch(`${window.location.pathname.replace(/\/+$/, "")}/receipt`, { headers: { accept: "application/json" }, signal: signal ?? null })
  return response.ok ? /** @type {Receipt} */ (await response.json()) : null
}

/**
 * The receipt of a paid payment: the order reference at once, the transaction once the service
 * responds (asked again a moment later if the hash is not recorded yet), with notes on transfers
 * that did not pay exactly in `notes`.
 *
 * @param {HTMLElement} notes
 */
function receipt(notes) {
  // Filled in from the service's receipt: when it was paid, and the token amount it was paid with.
  const date = h("dd", {})
  const paidWith = h("dd", {})
  const dateRow = h("div", { hidden: true }, h("dt", {}, "Date"), date)
  const paidWithRow = h("div", { hidden: true }, h("dt", {}, "Paid with"), paidWith)
  const list = h(
    "dl",
    { class: "receipt" },
    h("div", {}, h("dt", {}, "Order reference"), h("dd", {}, config.referenceId)),
    dateRow,
    h("div", {}, h("dt", {}, "Amount"), h("dd", {}, state.info === null ? "" : formatAmount(state.info.amount))),
    paidWithRow,
    config.mode === "sandbox" ? h("div", {}, h("dt", {}, "Mode"), h("dd", {}, "Test payment: no real funds were moved")) : null
  )
  /** @param {number} attempt */
  const load = async (attempt) => {
    const fetched = await fetchReceipt()
    if (fetched === null) return
    replace(notes, transferNotes(fetched.transfers, merchantName()))
    if (fetched.paid !== null) {
      date.textContent = formatDateTime(fetched.paid.paidAt, nowSeconds())
      const network = fetched.paid.amount.display.networkName
      paidWith.textContent = `${formatAmount(fetched.paid.amount)}${network ? ` on ${network}` : ""}`
      dateRow.hidden = false
      paidWithRow.hidden = false
    }
    const transaction = fetched.transaction
    if (transaction === null) {
      if (attempt < 3) setTimeout(() => void load(attempt + 1).catch(() => {}), 2000)
      return
    }
    const hash = transaction.explorerUrl === null
      ? h("code", { class: "tx-hash" }, transaction.hash)
      : h(
        "a",
        { class: "tx-hash", href: transaction.explorerUrl, target: "_blank", rel: "noopener noreferrer" },
        transaction.hash,
        h("span", { class: "visually-hidden" }, " (opens the block explorer)")
      )
    list.append(h("div", {}, h("dt", {}, "Transaction"), h("dd", {}, hash)))
  }
  // The receipt is a courtesy: without it the outcome stands.
  void load(1).catch(() => {})
  return list
}

/**
 * The view of a final status. `fresh`: the payment ended during this visit (the success and
 * failure views then redirect after the countdown); otherwise the views only offer a link back.
 *
 * @param {Status} status
 * @param {{ fresh: boolean }} how
 */
export function showFinal(status, how) {
  state.finished = true
  state.busy = false
  if (state.info !== null) updateInfo({ ...state.info, status })
  const succeeded = status === "succeeded"
  const url = returnUrl(succeeded ? "successUrl" : "errorUrl")
  const back = url === null ? [h("p", { class: "muted" }, "You can close this page.")] : null
  const link = url === null ? back : [h("a", { class: "button secondary", href: url }, `Return to ${merchantName()}`)]
  const redirecting = url !== null && how.fresh && (status === "succeeded" || status === "failed")
  const next = redirecting ? countdown(url) : link
  /** @type {Record<Status, [string, string, string | ReadonlyArray<import("./dom.js").Child>]>} */
  const views = {
    succeeded: how.fresh
      ? ["success", "Payment successful", state.paidAmount === null
        ? `Your payment to ${merchantName()} is complete.`
        : `You paid ${formatAmount(state.paidAmount)} to ${merchantName()}.`]
      : ["paid", "This payment is already paid", `${merchantName()} has received this payment. There is nothing more to do.`],
    failed: ["failed", "Payment failed", "The payment could not be completed on the network."],
    expired: ["expired", "This payment has expired", `The time to pay has run out. Start again from ${merchantName()}.`],
    cancelled: ["cancelled", "Payment cancelled", "This payment was cancelled. Nothing was paid."],
    processing: ["processing", "Processing your payment", ""],
    requires_action: ["connect", "", ""]
  }
  const [view, title, text] = heldOutcome(status, how.fresh) ?? views[status]
  const notes = h("div", { class: "transfer-notes" })
  if (!succeeded) void fetchReceipt().then((fetched) => fetched !== null && replace(notes, transferNotes(fetched.transfers, merchantName())), () => {})
  showView(view, [
    h("span", { class: `outcome ${view}`, "aria-hidden": "true" }),
    h("h1", {}, title),
    h("p", {}, text),
    notes,
    succeeded ? receipt(notes) : null,
    next
  ])
  renderFooter()
}

/**
 * Follows the status (long polls) until it is final, then shows the outcome.
 *
 * @param {Status} status
 */
export async function follow(status) {
  state.busy = true
  showProcessing()
  let current = status
  while (!isFinal(current)) {
    try {
      current = (await gateway.status(paymentId, longPollMs)).status
    } catch (error) {
      if (error instanceof GatewayError && error.status > 0 && error.status < 500) throw error
      await sleep(2000)
    }
  }
  showFinal(current, { fresh: true })
}
