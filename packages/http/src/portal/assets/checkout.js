// @ts-check
/**
 * The hosted checkout portal (`{checkout_url}/{paymentId}`): shows the merchant, the amount and the
 * time left; connects a browser wallet; lists the options for its accounts; runs the chosen
 * option's actions through the wallet (opening data collection first when the option needs it);
 * confirms; follows the status until it is final; then shows the outcome and, when the payment
 * has both redirect URLs, returns the buyer to the merchant after a visible 3-second countdown.
 * Before anything is connected the header shows the order reference, the token amount (as the
 * service prices it now) and one countdown with the time it ends, in the buyer's time zone. A paid
 * payment's view is a receipt: the order reference, the date, the token amount paid and the
 * transaction (linked to the chain's block explorer when one is configured). The footer links to
 * the merchant's support. Sandbox payments carry a "Test mode" badge.
 *
 * Buyers without a browser wallet (or who prefer another) pay from an exchange or any wallet: the
 * page asks for the payment's deposit options and shows what to send where (`deposit.js`), then
 * follows the payment until the transfer has paid it, telling what arrived when it did not.
 *
 * Everything goes through the gateway API with the portal's public App-Id; nothing is stored in
 * the browser.
 *
 * The page's parts are modules of their own: the shared configuration and state
 * (`checkout-state.js`), the header, footer and in-between views (`checkout-frame.js`), the wallet
 * path (`checkout-wallet.js`, `checkout-pay.js`), the deposit path (`checkout-deposit.js`) and the
 * outcome (`checkout-final.js`). This one routes between them and starts the page.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatDuration } from "./format.js"
import { GatewayError } from "./gateway.js"
import { WalletError } from "./wallet.js"
import { gateway, main, merchantName, moves, nowSeconds, paymentId, state, timeIsUp } from "./checkout-state.js"
import { renderFooter, setBusy, showFatal, showWorking, updateInfo } from "./checkout-frame.js"
import { follow, showFinal } from "./checkout-final.js"
import { requoteDeposit, showDeposit } from "./checkout-deposit.js"
import { loadOptions, requoteExpired, showConnect, showOptions } from "./checkout-wallet.js"
import { pay } from "./checkout-pay.js"

/** @typedef {import("./checkout-state.js").Status} Status */
/** @typedef {import("./checkout-state.js").PaymentInfo} PaymentInfo */
/** @typedef {import("./checkout-state.js").Step} Step */

let reloading = false
/** When the expiry check last asked the service (ms). */
let lastExpiryCheck = 0

/** @param {string} [message] */
function back(message) {
  if (state.path === "deposit" && state.depositOptions.length > 0) showDeposit(message)
  else if (state.wallet !== null && state.accounts.length > 0) showOptions(message)
  else showConnect(message)
}

/**
 * Shows what the payment's status calls for.
 *
 * @param {Status} status
 */
async function route(status) {
  if (status === "requires_action") return back()
  if (status === "processing") return follow(status)
  showFinal(status, { fresh: false })
}

/** Reads the payment again and shows what its status calls for (e.g. after an `invalid_state`). */
async function reload() {
  if (reloading) return
  reloading = true
  try {
    const waiting = state.info?.status === "requires_action"
    updateInfo(await gateway.payment(paymentId))
    const status = /** @type {PaymentInfo} */ (state.info).status
    // Still waiting (this device's clock runs ahead of the service's): the buyer stays where they are.
    if (waiting && status === "requires_action" && ["connect", "options", "deposit", "cancel"].includes(main.dataset["view"] ?? "")) return
    await route(status)
  } catch (error) {
    showFatal(error instanceof Error ? error.message : "The payment could not be read.")
  } finally {
    reloading = false
  }
}

function showCancel() {
  showView("cancel", [
    h("h1", {}, "Cancel this payment?"),
    h("p", {}, `You will not be able to pay it afterwards, and ${merchantName()} will see it as cancelled.`),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "button danger", onclick: () => void cancel() }, "Yes, cancel payment"),
      h("button", { type: "button", class: "button secondary", onclick: () => back() }, "Keep paying"))
  ])
  renderFooter()
}

async function cancel() {
  if (state.busy) return
  if (timeIsUp()) return void reload()
  setBusy(true)
  showWorking("Cancelling", "One moment…")
  try {
    await gateway.cancel(paymentId)
    showFinal("cancelled", { fresh: true })
  } catch (error) {
    setBusy(false)
    handleError(error, "cancel")
  }
}

/**
 * What a failed step shows: back to the wallet list or the options with a message, or the view
 * of the payment's current status when it changed meanwhile.
 *
 * @param {unknown} error
 * @param {Step} step
 */
function handleError(error, step) {
  const retreat = (/** @type {string} */ message) => (step === "connect" ? showConnect(message) : back(message))
  if (error instanceof WalletError) return retreat(error.message)
  if (!(error instanceof GatewayError)) return retreat("Something went wrong. Please try again.")
  switch (error.code) {
    case "payment_expired":
    case "invalid_state":
      return void reload()
    case "quote_expired":
      return void loadOptions().then(
        () => showOptions("The rate of this option expired and was updated. Check the amount, then pay.", "info"),
        (next) => handleError(next, step)
      )
    case "sanctioned_user":
      return retreat("This account cannot be used for this payment.")
    case "payment_not_found":
      return showFatal("This payment was not found.")
    default:
      return retreat(error.message)
  }
}

/** Once a second: the countdowns, the payment's expiry, stale quotes. */
function tick() {
  const now = nowSeconds()
  for (const element of document.querySelectorAll("[data-deadline]")) {
    element.textContent = formatDuration(Number(/** @type {HTMLElement} */ (element).dataset["deadline"]) - now)
  }
  if (state.info === null || state.finished || state.busy) return
  // The service reports a payment past its expiry as expired (asked at most every 5 s).
  if (timeIsUp() && Date.now() - lastExpiryCheck >= 5000) {
    lastExpiryCheck = Date.now()
    return void reload()
  }
  if (main.dataset["view"] === "options") void requoteExpired()
  if (main.dataset["view"] === "deposit") void requoteDeposit()
}

async function start() {
  try {
    updateInfo(await gateway.payment(paymentId))
  } catch (error) {
    return showFatal(error instanceof GatewayError && error.code === "payment_not_found" ? "This payment was not found." : "The payment could not be loaded.")
  }
  setInterval(tick, 1000)
  await route(/** @type {PaymentInfo} */ (state.info).status)
}

moves.back = back
moves.reload = reload
moves.handleError = handleError
moves.showCancel = showCancel
moves.showConnect = showConnect
moves.pay = pay
void start()
