// @ts-check
/**
 * Paying with the chosen option through the connected wallet: a fresh quote when it is about to
 * run out, the buyer's data first when the option asks for it (the data collection page in a
 * dialog), each wallet action with what it is and why, then the confirm.
 *
 * @module
 */
import { byId, h } from "./dom.js"
import { formatAmount } from "./format.js"
import { GatewayError } from "./gateway.js"
import { approveKind, describeApproval } from "./permit2.js"
import { walletSteps } from "./views.js"
import { runWalletRpc, WalletError } from "./wallet.js"
import { gateway, keyOf, moves, nowSeconds, paymentId, sleep, state, timeIsUp } from "./checkout-state.js"
import { setBusy, showProcessing, showWorking } from "./checkout-frame.js"
import { follow } from "./checkout-final.js"
import { loadOptions, showOptions } from "./checkout-wallet.js"

/** @typedef {import("./checkout-state.js").PaymentOption} PaymentOption */
/** @typedef {import("./checkout-state.js").Status} Status */
/** @typedef {import("./wallet.js").Wallet} Wallet */
/** @typedef {import("./wallet.js").WalletRpc} WalletRpc */

/** A quote this close to its expiry is re-quoted before paying. */
const quoteMarginSeconds = 5

/**
 * Opens the data collection page in a dialog; answers once it reports `IC_COMPLETE` (true),
 * `IC_ERROR` (its message) or is closed (false).
 *
 * @param {string} url
 * @returns {Promise<true | false | { error: string }>}
 */
function collectData(url) {
  const dialog = byId("collect-dialog", HTMLDialogElement)
  const close = byId("collect-dialog-close", HTMLButtonElement)
  const target = new URL(url, window.location.href)
  if (target.protocol !== "https:" && target.protocol !== "http:") return Promise.resolve({ error: "The data collection link is not valid." })
  return new Promise((resolve) => {
    const frame = h("iframe", { src: target.href, title: "Your information", class: "collect-frame" })
    /** @param {true | false | { error: string }} outcome */
    const finish = (outcome) => {
      window.removeEventListener("message", onMessage)
      dialog.removeEventListener("close", onClose)
      close.removeEventListener("click", onClose)
      frame.remove()
      if (dialog.open) dialog.close()
      resolve(outcome)
    }
    /** @param {MessageEvent} event */
    const onMessage = (event) => {
      if (event.source !== frame.contentWindow || event.origin !== target.origin) return
      const type = event.data?.type
      if (type === "IC_COMPLETE") finish(true)
      else if (type === "IC_ERROR") finish({ error: typeof event.data.message === "string" ? event.data.message : "" })
    }
    const onClose = () => finish(false)
    window.addEventListener("message", onMessage)
    dialog.addEventListener("close", onClose)
    close.addEventListener("click", onClose)
    dialog.append(frame)
    dialog.showModal()
  })
}

/**
 * What one wallet action of an option is, for the buyer: a short label (the step list) and why it is
 * asked (the current step's text).
 *
 * @param {WalletRpc} action
 * @param {PaymentOption} option
 * @param {string} walletName
 * @returns {{ title: string, label: string, why: string }}
 */
function describeAction(action, option, walletName) {
  const symbol = option.amount.display.assetSymbol
  const amount = formatAmount(option.amount)
  const approve = action.method === "eth_sendTransaction" ? approveKind(action) : null
  // Tokens without signed transfers (USDT): the wallet allows Permit2 once, then signs each payment.
  if (approve !== null) return describeApproval(approve, symbol, walletName)
  if (action.method === "eth_sendTransaction") {
    return { title: "Approve in your wallet", label: `Send ${amount}`, why: `Check the transfer of ${amount} in ${walletName} and approve it.` }
  }
  return {
    title: option.actions.length > 1 ? "Sign the payment" : "Sign in your wallet",
    label: `Sign the payment of ${amount} (no network fee)`,
    why: option.actions.length > 1
      ? `Check the payment of ${amount} in ${walletName} and sign it: no network fee, it is paid with the allowance you gave.`
      : `Check the payment of ${amount} in ${walletName} and sign it.`
  }
}

/**
 * Runs one wallet action, saying what the wallet is about to ask; an option of several actions
 * lists them all, the current one marked, so the buyer sees why the wallet asks more than once.
 *
 * @param {WalletRpc} action
 * @param {PaymentOption} option
 */
function runStep(action, option) {
  const network = option.amount.display.networkName ?? action.chain_id
  const walletName = state.wallet?.info.name ?? "your wallet"
  const rpcs = option.actions.flatMap((a) => (a.type === "walletRpc" ? [a.data] : []))
  const index = rpcs.indexOf(action)
  const current = describeAction(action, option, walletName)
  const switching = `It may first ask to switch to ${network}.`
  if (rpcs.length < 2 || index < 0) {
    showWorking(current.title, `${current.why} ${switching}`)
  } else {
    showWorking(current.title, `Step ${index + 1} of ${rpcs.length}. ${current.why} ${switching}`,
      walletSteps(rpcs.map((rpc) => describeAction(rpc, option, walletName).label), index))
  }
  return runWalletRpc(/** @type {Wallet} */ (state.wallet).provider, action, network)
}

/**
 * Confirms; retries when the service could not be reached (the same confirm is idempotent).
 *
 * @param {string} optionId
 * @param {ReadonlyArray<{ type: "walletRpc", data: ReadonlyArray<string> }>} results
 * @returns {Promise<{ status: Status }>}
 */
async function confirm(optionId, results) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await gateway.confirm(paymentId, optionId, results)
    } catch (error) {
      const transient = error instanceof GatewayError && (error.status === 0 || error.status >= 500)
      if (!transient || attempt >= 4) throw error
      await sleep(1000 * attempt)
    }
  }
}

export async function pay() {
  const chosen = state.options.find((o) => keyOf(o) === state.selectedKey)
  if (state.busy || chosen === undefined || state.wallet === null) return
  if (timeIsUp()) return void moves.reload()
  setBusy(true)
  try {
    let option = chosen
    if (typeof option.expiresAt === "number" && option.expiresAt <= nowSeconds() + quoteMarginSeconds) {
      await loadOptions([option.id])
      setBusy(false)
      return showOptions("The rate of this option was updated. Check the amount, then pay.", "info")
    }
    if (option.collectData) {
      const collected = await collectData(option.collectData.url)
      if (collected !== true) {
        setBusy(false)
        return showOptions(
          collected === false ? "Your details are needed to pay with this option." : `Your details could not be saved. ${collected.error}`.trim()
        )
      }
      showWorking("Preparing your payment", "One moment…")
      await loadOptions()
      const updated = state.options.find((o) => keyOf(o) === keyOf(chosen))
      if (updated === undefined) throw new GatewayError(409, "invalid_state", "This option is no longer available.")
      option = updated
    }
    /** @type {{ type: "walletRpc", data: string[] }[]} */
    const results = []
    for (const action of option.actions) {
      if (action.type === "walletRpc") {
        results.push({ type: "walletRpc", data: [await runStep(action.data, option)] })
      } else if (action.type === "build") {
        showWorking("Preparing your payment", "One moment…")
        const fetched = await gateway.fetchActions(paymentId, option.id, action.data.data)
        const data = []
        for (const step of fetched.actions ?? []) {
          if (step.type !== "walletRpc") throw new WalletError("The payment service asked for an action this page cannot run.")
          data.push(await runStep(step.data, option))
        }
        results.push({ type: "walletRpc", data })
      } else {
        throw new WalletError("The payment service asked for an action this page cannot run.")
      }
    }
    showProcessing()
    const confirmed = await confirm(option.id, results)
    state.paidAmount = option.amount
    await follow(confirmed.status)
  } catch (error) {
    setBusy(false)
    moves.handleError(error, "pay")
  }
}
