// @ts-check
/**
 * Paying from an exchange or another wallet: asks for the payment's deposit options, shows what
 * to send where (the parts are `deposit.js`'s), follows the payment meanwhile, shows transfers that
 * arrived but did not pay it, and re-quotes when a transfer fell short or the rate ran out.
 *
 * @module
 */
import { h, replace, showView } from "./dom.js"
import { depositDetails, isCoin, networkOf, networkPicker, shortfallAlerts, stillMissing } from "./deposit.js"
import { GatewayError, isAbort } from "./gateway.js"
import { gateway, main, merchantName, moves, nowSeconds, paymentId, sleep, state, timeIsUp } from "./checkout-state.js"
import { alertBox } from "./views.js"
import { renderFooter, setBusy, showWorking } from "./checkout-frame.js"
import { fetchReceipt, follow } from "./checkout-final.js"

/** @typedef {import("./checkout-state.js").Status} Status */
/** @typedef {import("./checkout-state.js").DepositOption} DepositOption */

/** On the deposit view: shorter, as transfers that do not pay (too little) change no status but are shown. */
const depositPollMs = 10_000

/** The token (CAIP-19, so also the network) of the deposit option shown. */
let depositAsset = ""
/** Stops following the payment from the deposit view. */
/** @type {AbortController | null} */
let watching = null

/** Asks for the payment's deposit options (one per network) and shows them. */
export async function startDeposit() {
  if (state.busy) return
  if (timeIsUp()) return void moves.reload()
  setBusy(true)
  showWorking("Preparing your deposit address", "One moment…")
  try {
    await loadDeposit()
    setBusy(false)
    if (state.depositOptions.length === 0) return moves.back("This payment cannot be paid from an exchange or another wallet. Use a browser wallet.")
    showDeposit()
  } catch (error) {
    setBusy(false)
    moves.handleError(error, "deposit")
  }
}

async function loadDeposit() {
  const response = await gateway.deposit(paymentId)
  state.depositOptions = (response.options ?? []).filter((/** @type {DepositOption} */ o) => o.kind === "deposit")
  if (!state.depositOptions.some((o) => o.asset === depositAsset)) depositAsset = state.depositOptions[0]?.asset ?? ""
}

const chosenDeposit = () => state.depositOptions.find((o) => o.asset === depositAsset)

/** @param {DepositOption} option */
const qrUrl = (option) =>
  `${window.location.pathname.replace(/\/+$/, "")}/deposit-qr.svg?asset=${encodeURIComponent(option.asset)}&value=${encodeURIComponent(option.amount.value)}`

/**
 * The deadline of a deposit (Unix seconds): its amount's expiry, at the latest the payment's.
 *
 * @param {DepositOption} option
 */
const depositDeadline = (option) => Math.min(option.expiresAt ?? Number.POSITIVE_INFINITY, state.info?.expiresAt ?? Number.POSITIVE_INFINITY)

export function stopWatching() {
  watching?.abort()
  watching = null
}

/**
 * What to send where, for the chosen network; follows the payment meanwhile.
 *
 * @param {string} [message]
 * @param {"error" | "info"} [tone]
 */
export function showDeposit(message, tone = "error") {
  const option = chosenDeposit()
  if (option === undefined) return moves.showConnect(message)
  state.path = "deposit"
  const details = h("div", { class: "deposit-details" })
  const received = h("div", { class: "deposit-received" })
  const waiting = h("span", {})
  const render = (/** @type {DepositOption} */ chosen) => {
    waiting.textContent = `Waiting for your transfer on ${networkOf(chosen)}. This page updates by itself when it arrives.`
    // The address takes the network's own coin when it is offered there (its factory sweeps it).
    const takesCoin = state.depositOptions.some((o) => o.network === chosen.network && isCoin(o))
    replace(details, depositDetails(chosen, { qrUrl: qrUrl(chosen), deadline: depositDeadline(chosen), now: nowSeconds(), takesCoin }))
  }
  render(option)
  showView("deposit", [
    h("h1", {}, "Pay from an exchange or another wallet"),
    h("p", { class: "waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), waiting),
    alertBox(message, tone),
    networkPicker(state.depositOptions, depositAsset, (next) => {
      depositAsset = next.asset
      render(next)
    }),
    received,
    details,
    h("p", { class: "other-path" }, h("button", {
      type: "button",
      class: "button link inline",
      onclick: () => {
        state.path = "wallet"
        stopWatching()
        moves.back()
      }
    }, "Pay with a browser wallet instead"))
  ])
  renderFooter()
  void watchDeposit(received)
}

/**
 * Follows the payment from the deposit view (long polls), showing transfers that arrived but did
 * not pay it; once it moves on, follows it to its outcome.
 *
 * @param {HTMLElement} received
 */
async function watchDeposit(received) {
  stopWatching()
  const controller = new AbortController()
  watching = controller
  const signal = controller.signal
  // The buyer may be asked to confirm a cancellation meanwhile: the payment is still followed.
  const stillHere = () => !signal.aborted && ["deposit", "cancel"].includes(main.dataset["view"] ?? "")
  // Announced once each: re-rendered only when another transfer arrived.
  let shown = ""
  while (stillHere()) {
    void fetchReceipt(signal).then((fetched) => {
      const asked = chosenDeposit()?.amount
      const seen = fetched?.transfers.map((t) => t.hash).join() ?? ""
      if (fetched === null || asked === undefined || seen === shown) return
      shown = seen
      replace(received, shortfallAlerts(fetched.transfers, asked, merchantName()))
      // A transfer of less than the amount counts: the amount and code shown become the rest.
      const partial = stillMissing(fetched.transfers, asked)
      if (partial !== null && partial.missing.toString() !== asked.value) void reloadDeposit()
    }, () => {})
    /** @type {Status} */
    let status
    try {
      status = (await gateway.status(paymentId, depositPollMs, signal)).status
    } catch (error) {
      if (isAbort(error)) return
      if (error instanceof GatewayError && error.status > 0 && error.status < 500) {
        stopWatching()
        return moves.handleError(error, "deposit")
      }
      await sleep(2000)
      continue
    }
    if (!stillHere()) return
    if (status !== "requires_action") {
      stopWatching()
      state.paidAmount = chosenDeposit()?.amount ?? null
      return void follow(status).catch((error) => moves.handleError(error, "deposit"))
    }
  }
}

/**
 * Asks for the deposit options again (same address) and shows them with `message`: after a transfer
 * of less than the amount (the rest to send), or once the shown amount's rate ran out.
 *
 * @param {string} [message]
 */
async function reloadDeposit(message) {
  if (state.requoting) return
  state.requoting = true
  try {
    await loadDeposit()
    if (main.dataset["view"] === "deposit") showDeposit(message, "info")
  } catch (error) {
    if (main.dataset["view"] === "deposit") moves.handleError(error, "deposit")
  } finally {
    state.requoting = false
  }
}

/** Asks for a new quote once the shown amount's rate ran out (same address, new amount). */
export async function requoteDeposit() {
  const option = chosenDeposit()
  if (option === undefined || option.expiresAt === null || option.expiresAt > nowSeconds()) return
  await reloadDeposit("The amount was updated to the current rate. Send exactly the amount shown now.")
}
