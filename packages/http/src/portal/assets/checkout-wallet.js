// @ts-check
/**
 * The wallet path up to the pay button: the wallets found in the browser, connecting one, the
 * options of its accounts (asked on every chain the service collects on) and re-quoting them when
 * their rate runs out. Running the chosen option is `checkout-pay.js`.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatAmount, shortAddress } from "./format.js"
import { approveKind } from "./permit2.js"
import { alertBox, noWalletNote, tokenIcons, walletList } from "./views.js"
import { connect, currentChain, discoverWallets, WalletError } from "./wallet.js"
import { config, depositsOffered, gateway, keyOf, main, moves, nowSeconds, paymentId, state, timeIsUp } from "./checkout-state.js"
import { renderFooter, setBusy, showWorking, updateInfo } from "./checkout-frame.js"
import { startDeposit, stopWatching } from "./checkout-deposit.js"
import { payVerb } from "./checkout-hold.js"

/** @typedef {import("./checkout-state.js").PaymentOption} PaymentOption */
/** @typedef {import("./wallet.js").Wallet} Wallet */

/** The gateway takes at most 20 accounts per options request. */
const maxAccounts = 20

const discovery = discoverWallets(() => {
  if (main.dataset["view"] === "connect") showConnect(undefined, { focus: false })
})

/**
 * Where the deposit choice would be, for a payment that requires buyer data (travel rule): why it
 * is not offered. The data is owed by the paying account, unknown before a transfer arrives.
 */
function depositUnavailable() {
  if (config.deposits !== "needsData") return null
  return h("p", { class: "muted hint deposit-unavailable" },
    "This amount needs a wallet that can share your details with the payment, so it cannot be paid from an exchange or by sending to an address.")
}

/**
 * Whether an option asks for an approve before its signature (Permit2 tokens, while the allowance falls short).
 *
 * @param {PaymentOption} option
 */
function asksApproval(option) {
  return option.actions.some((a) => a.type === "walletRpc" && a.data.method === "eth_sendTransaction" && approveKind(a.data) !== null)
}

/**
 * @param {string} [message]
 * @param {{ focus?: boolean }} [options]
 */
export function showConnect(message, options = {}) {
  state.path = "wallet"
  stopWatching()
  const wallets = discovery.wallets()
  const depositChoice = (/** @type {boolean} */ prominent) => h("div", { class: "deposit-choice" },
    h("button", { type: "button", class: `button ${prominent ? "primary" : "secondary"}`, onclick: () => void startDeposit() }, "Pay from an exchange or another wallet"),
    h("p", { class: "muted hint" }, "Send the amount to an address made for this payment, or scan a QR code with your phone."))
  // Without a wallet, the page offers the way to pay that works without one first.
  const noWallet = noWalletNote(() => { discovery.rescan(); showConnect() })
  if (wallets.length === 0 && depositsOffered) {
    showView("connect", [
      h("h1", {}, "Choose how to pay"),
      alertBox(message),
      depositChoice(true),
      h("p", { class: "or" }, h("span", {}, "or with a browser wallet")),
      noWallet
    ], options)
    return renderFooter()
  }
  showView("connect", [
    h("h1", {}, "Pay with your wallet"),
    h("p", { class: "muted" }, "Connect a browser wallet to see how you can pay."),
    alertBox(message),
    wallets.length > 0 ? walletList(wallets, (w) => void choose(w)) : noWallet,
    depositsOffered ? [h("p", { class: "or" }, h("span", {}, "or")), depositChoice(false)] : depositUnavailable()
  ], options)
  renderFooter()
}

/**
 * @param {string} [message]
 * @param {"error" | "info"} [tone]
 */
export function showOptions(message, tone = "error") {
  if (state.wallet === null) return showConnect(message)
  const walletName = state.wallet.info.name
  const who = h("p", { class: "muted connected" }, `Connected: ${walletName} · ${state.accounts.map(shortAddress).join(", ")} `,
    h("button", { type: "button", class: "button link inline", onclick: () => showConnect() }, "Change wallet"))
  if (state.options.length === 0) {
    showView("options", [
      h("h1", {}, "No way to pay with this wallet"),
      who,
      alertBox(message, tone),
      h("p", {}, "None of the tokens this payment accepts is available to these accounts. Choose another wallet or account."),
      depositsOffered ? h("button", { type: "button", class: "button secondary", onclick: () => void startDeposit() }, "Pay from an exchange or another wallet") : depositUnavailable()
    ])
    return renderFooter()
  }
  if (!state.options.some((o) => keyOf(o) === state.selectedKey)) state.selectedKey = keyOf(/** @type {PaymentOption} */ (state.options[0]))
  const payButton = h("button", { type: "submit", class: "button primary" })
  const setPayLabel = () => {
    const chosen = state.options.find((o) => keyOf(o) === state.selectedKey)
    payButton.textContent = chosen === undefined ? payVerb : `${payVerb} ${formatAmount(chosen.amount)}`
  }
  setPayLabel()
  const list = state.options.map((option, index) => {
    const display = option.amount.display
    const id = `option-${index}`
    const radio = h("input", { type: "radio", name: "option", id, value: String(index), checked: keyOf(option) === state.selectedKey })
    radio.addEventListener("change", () => {
      state.selectedKey = keyOf(option)
      setPayLabel()
    })
    const address = option.account.split(":")[2] ?? option.account
    return h("label", { class: "option", for: id },
      radio,
      tokenIcons(display),
      h("span", { class: "option-text" },
        h("span", { class: "option-amount" }, formatAmount(option.amount)),
        h("span", { class: "option-detail" }, `${display.assetName}${display.networkName ? ` on ${display.networkName}` : ""}`),
        h("span", { class: "option-detail" }, `From ${shortAddress(address)} · about ${option.etaS} s`),
        // The rate is quoted again by itself when it runs out: no second countdown.
        typeof option.expiresAt === "number" ? h("span", { class: "option-detail" }, "Market rate, updated by itself") : null,
        asksApproval(option)
          ? h("span", { class: "option-detail" }, `Your wallet first asks you to allow ${display.assetSymbol} once (a transaction: you pay its network fee), then to sign the payment.`)
          : null,
        option.collectData ? h("span", { class: "badge" }, "Asks for your details") : null))
  })
  const form = h("form", { class: "options-form", onsubmit: (event) => { event.preventDefault(); void moves.pay() } },
    h("fieldset", { class: "options" }, h("legend", { class: "visually-hidden" }, "Payment options"), list),
    payButton)
  showView("options", [
    h("h1", {}, "Choose how to pay"),
    who,
    alertBox(message, tone),
    form,
    depositsOffered
      ? h("p", { class: "other-path" }, h("button", { type: "button", class: "button link inline", onclick: () => void startDeposit() }, "Or pay from an exchange or another wallet"))
      : null
  ])
  renderFooter()
}

/** @param {Wallet} choice */
async function choose(choice) {
  if (state.busy) return
  if (timeIsUp()) return void moves.reload()
  setBusy(true)
  showWorking("Connect your wallet", `Approve the connection in ${choice.info.name}.`)
  try {
    const shared = await connect(choice.provider)
    if (shared.length === 0) throw new WalletError("Your wallet shared no account.")
    state.wallet = choice
    state.accounts = shared
    await loadOptions()
    setBusy(false)
    showOptions()
  } catch (error) {
    setBusy(false)
    moves.handleError(error, "connect")
  }
}

/**
 * Asks the gateway for the options of the connected accounts on every chain the service collects
 * on (or the wallet's chain when none is configured).
 *
 * @param {ReadonlyArray<string> | null} [refresh]
 */
export async function loadOptions(refresh = null) {
  if (state.wallet === null) return
  const configured = config.chains.length > 0 ? config.chains : [await currentChain(state.wallet.provider)]
  const chains = configured.filter((chain) => typeof chain === "string")
  const perChain = Math.max(1, Math.floor(maxAccounts / Math.max(1, chains.length)))
  const caip10 = chains.flatMap((chain) => state.accounts.slice(0, perChain).map((account) => `${chain}:${account}`)).slice(0, maxAccounts)
  if (caip10.length === 0) {
    state.options = []
    return
  }
  const response = await gateway.options(paymentId, caip10, { refresh, includePaymentInfo: true })
  if (response.info) updateInfo(response.info)
  state.options = response.options ?? []
}

/** Re-quotes options whose quote ran out while the buyer looked at them. */
export async function requoteExpired() {
  const stale = state.options.filter((o) => typeof o.expiresAt === "number" && o.expiresAt <= nowSeconds())
  if (state.requoting || state.busy || stale.length === 0) return
  state.requoting = true
  try {
    await loadOptions(stale.map((o) => o.id))
    if (!state.busy && main.dataset["view"] === "options") showOptions("The rates were updated. Check the amount, then pay.", "info")
  } catch (error) {
    if (!state.busy) moves.handleError(error, "pay")
  } finally {
    state.requoting = false
  }
}
