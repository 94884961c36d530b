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
 * @module
 */
import { byId, h, icon, pageConfig, randomId, replace, showView } from "./dom.js"
import { formatAmount, formatClock, formatDateTime, formatDuration, shortAddress } from "./format.js"
import { depositDetails, isCoin, networkOf, networkPicker, shortfallAlerts, stillMissing, transferNotes } from "./deposit.js"
import { createGateway, GatewayError, isAbort } from "./gateway.js"
import { connect, currentChain, discoverWallets, runWalletRpc, WalletError } from "./wallet.js"

/** @typedef {import("./format.js").Amount} Amount */
/** @typedef {import("./wallet.js").Wallet} Wallet */
/** @typedef {import("./wallet.js").WalletRpc} WalletRpc */
/** @typedef {"requires_action" | "processing" | "succeeded" | "failed" | "expired" | "cancelled"} Status */
/** @typedef {{ status: Status, amount: Amount, expiresAt: number, merchant: { name: string, iconUrl?: string | null } }} PaymentInfo */
/** @typedef {{ type: "walletRpc", data: WalletRpc } | { type: "build", data: { data: string } }} Action */
/** @typedef {{ id: string, account: string, amount: Amount, etaS: number, actions: ReadonlyArray<Action>, collectData?: { url: string } | null, expiresAt?: number | null }} PaymentOption */

/** @typedef {import("./deposit.js").DepositOption} DepositOption */
/** @typedef {import("./deposit.js").Transfer} Transfer */
/** @typedef {{ transaction: { chainId: string, hash: string, explorerUrl: string | null } | null, transfers: ReadonlyArray<Transfer>, paid: { amount: Amount, paidAt: number } | null }} Receipt */

/**
 * @typedef {{ paymentId: string, appId: string, chains: string[], redirect: { successUrl: string, errorUrl: string } | null, mode: "live" | "sandbox",
 *   referenceId: string, deposits: "offered" | "needsData" | "none", tokenAmounts: ReadonlyArray<{ amount: Amount, floating: boolean }>,
 *   support: { email: string | null, site: string | null } }} CheckoutConfig
 */
const config = /** @type {CheckoutConfig} */ (pageConfig())
const paymentId = config.paymentId
const gateway = createGateway({ appId: config.appId, clientId: randomId() })
/** Whether the page offers paying from an exchange or another wallet (a chain has a deposit factory). */
const depositsOffered = config.deposits === "offered"
/** Unix seconds on the service's clock. */
const nowSeconds = gateway.now
const summary = byId("summary", HTMLElement)
const footer = byId("footer", HTMLElement)
const main = byId("view", HTMLElement)

/** Redirect countdown (service-spec "Buyer redirect"). */
const redirectSeconds = 3
/** The longest a status request waits for a change. */
const longPollMs = 25_000
/** On the deposit view: shorter, as transfers that do not pay (too little) change no status but are shown. */
const depositPollMs = 10_000
/** A quote this close to its expiry is re-quoted before paying. */
const quoteMarginSeconds = 5
/** The gateway takes at most 20 accounts per options request. */
const maxAccounts = 20

/** @type {PaymentInfo | null} */
let info = null
/** @type {Wallet | null} */
let wallet = null
/** @type {ReadonlyArray<string>} */
let accounts = []
/** @type {ReadonlyArray<PaymentOption>} */
let options = []
/** Which option is chosen: by account and token (an option's id changes when it is re-quoted). */
let selectedKey = ""
let busy = false
let finished = false
let reloading = false
let requoting = false
/** @type {Amount | null} The amount of the option the buyer paid with in this visit. */
let paidAmount = null
/** When the expiry check last asked the service (ms). */
let lastExpiryCheck = 0
/** How the buyer pays: through a browser wallet, or by sending to a deposit address. */
let path = /** @type {"wallet" | "deposit"} */ ("wallet")
/** @type {ReadonlyArray<DepositOption>} */
let depositOptions = []
/** The token (CAIP-19, so also the network) of the deposit option shown. */
let depositAsset = ""
/** Stops following the payment from the deposit view. */
/** @type {AbortController | null} */
let watching = null

const discovery = discoverWallets(() => {
  if (main.dataset["view"] === "connect") showConnect(undefined, { focus: false })
})

/** @param {PaymentOption} option */
const keyOf = (option) => `${option.account}|${option.amount.unit}`
/** @param {Status} status */
const isFinal = (status) => status !== "requires_action" && status !== "processing"
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const merchantName = () => info?.merchant.name ?? "the merchant"

/** The payment's time is up (the service then reports it expired; asking it anything else would be refused). */
const timeIsUp = () => info !== null && info.status === "requires_action" && nowSeconds() >= info.expiresAt

/** @param {boolean} value */
function setBusy(value) {
  busy = value
  renderFooter()
}

/**
 * A message for the buyer, announced by screen readers: a problem, or (`info`) news.
 *
 * @param {string | undefined} message
 * @param {"error" | "info"} [tone]
 */
function alertBox(message, tone = "error") {
  return message === undefined ? null : h("div", { class: `alert ${tone}`, role: "alert" }, message)
}

/**
 * Where the deposit choice would be, for a payment that requires buyer data (travel rule): why it
 * is not offered. The data is owed by the paying account, unknown before a transfer arrives.
 */
function depositUnavailable() {
  if (config.deposits !== "needsData") return null
  return h("p", { class: "muted hint deposit-unavailable" },
    "This amount needs a wallet that can share your details with the payment, so it cannot be paid from an exchange or by sending to an address.")
}

// ---- header and footer ----

function renderSummary() {
  if (info === null) return
  const merchant = info.merchant
  const avatar = icon(merchant.iconUrl, "merchant-icon") ??
    h("span", { class: "merchant-icon avatar", "aria-hidden": "true" }, (merchant.name.trim()[0] ?? "?").toUpperCase())
  const waiting = info.status === "requires_action" && !finished
  // Until a wallet's options or a deposit quote it exactly, what each token would cost now.
  const tokens = waiting ? config.tokenAmounts : []
  replace(
    summary,
    h(
      "div",
      { class: "merchant" },
      avatar,
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
      : null
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

function renderFooter() {
  const canCancel = info?.status === "requires_action" && !finished && !busy && main.dataset["view"] !== "cancel"
  replace(
    footer,
    canCancel ? h("button", { type: "button", class: "button link", onclick: () => showCancel() }, "Cancel payment") : null,
    supportLink()
  )
}

/** @param {PaymentInfo} next */
function updateInfo(next) {
  info = next
  renderSummary()
  renderFooter()
}

// ---- views ----

/**
 * @param {string} [message]
 * @param {{ focus?: boolean }} [options]
 */
function showConnect(message, options = {}) {
  path = "wallet"
  stopWatching()
  const wallets = discovery.wallets()
  const depositChoice = (/** @type {boolean} */ prominent) => h("div", { class: "deposit-choice" },
    h("button", { type: "button", class: `button ${prominent ? "primary" : "secondary"}`, onclick: () => void startDeposit() }, "Pay from an exchange or another wallet"),
    h("p", { class: "muted hint" }, "Send the amount to an address made for this payment, or scan a QR code with your phone."))
  // No wallet is the usual case on a phone: said calmly, with the way to pay that works without one.
  const noWallet = h("p", { class: "muted no-wallet" },
    "No browser wallet was found in this browser. On a computer, install a wallet extension; on a phone, open this page in your wallet app. ",
    h("button", { type: "button", class: "button link inline", onclick: () => { discovery.rescan(); showConnect() } }, "Look again"))
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
    wallets.length > 0
      ? h("ul", { class: "wallets", "aria-label": "Wallets" }, wallets.map((w) =>
        h("li", {}, h("button", { type: "button", class: "wallet-button", onclick: () => void choose(w) }, icon(w.info.icon, "wallet-icon"), h("span", {}, w.info.name)))
      ))
      : noWallet,
    depositsOffered ? [h("p", { class: "or" }, h("span", {}, "or")), depositChoice(false)] : depositUnavailable()
  ], options)
  renderFooter()
}

/**
 * @param {string} [message]
 * @param {"error" | "info"} [tone]
 */
function showOptions(message, tone = "error") {
  if (wallet === null) return showConnect(message)
  const walletName = wallet.info.name
  const who = h("p", { class: "muted connected" }, `Connected: ${walletName} · ${accounts.map(shortAddress).join(", ")} `,
    h("button", { type: "button", class: "button link inline", onclick: () => showConnect() }, "Change wallet"))
  if (options.length === 0) {
    showView("options", [
      h("h1", {}, "No way to pay with this wallet"),
      who,
      alertBox(message, tone),
      h("p", {}, "None of the tokens this payment accepts is available to these accounts. Choose another wallet or account."),
      depositsOffered ? h("button", { type: "button", class: "button secondary", onclick: () => void startDeposit() }, "Pay from an exchange or another wallet") : depositUnavailable()
    ])
    return renderFooter()
  }
  if (!options.some((o) => keyOf(o) === selectedKey)) selectedKey = keyOf(/** @type {PaymentOption} */ (options[0]))
  const payButton = h("button", { type: "submit", class: "button primary" })
  const setPayLabel = () => {
    const chosen = options.find((o) => keyOf(o) === selectedKey)
    payButton.textContent = chosen === undefined ? "Pay" : `Pay ${formatAmount(chosen.amount)}`
  }
  setPayLabel()
  const list = options.map((option, index) => {
    const display = option.amount.display
    const id = `option-${index}`
    const radio = h("input", { type: "radio", name: "option", id, value: String(index), checked: keyOf(option) === selectedKey })
    radio.addEventListener("change", () => {
      selectedKey = keyOf(option)
      setPayLabel()
    })
    const address = option.account.split(":")[2] ?? option.account
    return h("label", { class: "option", for: id },
      radio,
      h("span", { class: "option-icons" },
        icon(display.iconUrl, "token-icon", display.assetName) ?? h("span", { class: "token-icon avatar", "aria-hidden": "true" }, display.assetSymbol.slice(0, 1)),
        icon(display.networkIconUrl, "network-icon", display.networkName ?? "")),
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
  const form = h("form", { class: "options-form", onsubmit: (event) => { event.preventDefault(); void pay() } },
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

/**
 * @param {string} title
 * @param {string} text
 * @param {HTMLElement} [steps] the steps of a payment asking the wallet more than once
 */
function showWorking(title, text, steps) {
  showView("working", [h("span", { class: "spinner large", "aria-hidden": "true" }), h("h1", {}, title), steps ?? null, h("p", { class: "muted" }, text)])
  main.setAttribute("aria-busy", "true")
  renderFooter()
}

function showProcessing() {
  showView("processing", [
    h("span", { class: "spinner large", "aria-hidden": "true" }),
    h("h1", {}, path === "deposit" ? "Your transfer arrived" : "Processing your payment"),
    h("p", { class: "muted" }, "The network is confirming your payment. This page updates by itself.")
  ])
  main.setAttribute("aria-busy", "true")
  renderFooter()
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

/** @param {string} [message] */
function back(message) {
  if (path === "deposit" && depositOptions.length > 0) showDeposit(message)
  else if (wallet !== null && accounts.length > 0) showOptions(message)
  else showConnect(message)
}

/** @param {string} message */
function showFatal(message) {
  finished = true
  showView("error", [
    h("h1", {}, "Something went wrong"),
    h("p", {}, message),
    h("button", { type: "button", class: "button secondary", onclick: () => window.location.reload() }, "Try again")
  ])
  renderFooter()
}

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
async function fetchReceipt(signal) {
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
    h("div", {}, h("dt", {}, "Amount"), h("dd", {}, info === null ? "" : formatAmount(info.amount))),
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
function showFinal(status, how) {
  finished = true
  busy = false
  if (info !== null) updateInfo({ ...info, status })
  const succeeded = status === "succeeded"
  const url = returnUrl(succeeded ? "successUrl" : "errorUrl")
  const back = url === null ? [h("p", { class: "muted" }, "You can close this page.")] : null
  const link = url === null ? back : [h("a", { class: "button secondary", href: url }, `Return to ${merchantName()}`)]
  const redirecting = url !== null && how.fresh && (status === "succeeded" || status === "failed")
  const next = redirecting ? countdown(url) : link
  /** @type {Record<Status, [string, string, string]>} */
  const views = {
    succeeded: how.fresh
      ? ["success", "Payment successful", paidAmount === null
        ? `Your payment to ${merchantName()} is complete.`
        : `You paid ${formatAmount(paidAmount)} to ${merchantName()}.`]
      : ["paid", "This payment is already paid", `${merchantName()} has received this payment. There is nothing more to do.`],
    failed: ["failed", "Payment failed", "The payment could not be completed on the network."],
    expired: ["expired", "This payment has expired", `The time to pay has run out. Start again from ${merchantName()}.`],
    cancelled: ["cancelled", "Payment cancelled", "This payment was cancelled. Nothing was paid."],
    processing: ["processing", "Processing your payment", ""],
    requires_action: ["connect", "", ""]
  }
  const [view, title, text] = views[status]
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

// ---- flow ----

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
    const waiting = info?.status === "requires_action"
    updateInfo(await gateway.payment(paymentId))
    const status = /** @type {PaymentInfo} */ (info).status
    // Still waiting (this device's clock runs ahead of the service's): the buyer stays where they are.
    if (waiting && status === "requires_action" && ["connect", "options", "deposit", "cancel"].includes(main.dataset["view"] ?? "")) return
    await route(status)
  } catch (error) {
    showFatal(error instanceof Error ? error.message : "The payment could not be read.")
  } finally {
    reloading = false
  }
}

/** @param {Wallet} choice */
async function choose(choice) {
  if (busy) return
  if (timeIsUp()) return void reload()
  setBusy(true)
  showWorking("Connect your wallet", `Approve the connection in ${choice.info.name}.`)
  try {
    const shared = await connect(choice.provider)
    if (shared.length === 0) throw new WalletError("Your wallet shared no account.")
    wallet = choice
    accounts = shared
    await loadOptions()
    setBusy(false)
    showOptions()
  } catch (error) {
    setBusy(false)
    handleError(error, "connect")
  }
}

/**
 * Asks the gateway for the options of the connected accounts on every chain the service collects
 * on (or the wallet's chain when none is configured).
 *
 * @param {ReadonlyArray<string> | null} [refresh]
 */
async function loadOptions(refresh = null) {
  if (wallet === null) return
  const configured = config.chains.length > 0 ? config.chains : [await currentChain(wallet.provider)]
  const chains = configured.filter((chain) => typeof chain === "string")
  const perChain = Math.max(1, Math.floor(maxAccounts / Math.max(1, chains.length)))
  const caip10 = chains.flatMap((chain) => accounts.slice(0, perChain).map((account) => `${chain}:${account}`)).slice(0, maxAccounts)
  if (caip10.length === 0) {
    options = []
    return
  }
  const response = await gateway.options(paymentId, caip10, { refresh, includePaymentInfo: true })
  if (response.info) updateInfo(response.info)
  options = response.options ?? []
}

/** Re-quotes options whose quote ran out while the buyer looked at them. */
async function requoteExpired() {
  const stale = options.filter((o) => typeof o.expiresAt === "number" && o.expiresAt <= nowSeconds())
  if (requoting || busy || stale.length === 0) return
  requoting = true
  try {
    await loadOptions(stale.map((o) => o.id))
    if (!busy && main.dataset["view"] === "options") showOptions("The rates were updated. Check the amount, then pay.", "info")
  } catch (error) {
    if (!busy) handleError(error, "pay")
  } finally {
    requoting = false
  }
}

// ---- paying from an exchange or another wallet ----

/** Asks for the payment's deposit options (one per network) and shows them. */
async function startDeposit() {
  if (busy) return
  if (timeIsUp()) return void reload()
  setBusy(true)
  showWorking("Preparing your deposit address", "One moment…")
  try {
    await loadDeposit()
    setBusy(false)
    if (depositOptions.length === 0) return back("This payment cannot be paid from an exchange or another wallet. Use a browser wallet.")
    showDeposit()
  } catch (error) {
    setBusy(false)
    handleError(error, "deposit")
  }
}

async function loadDeposit() {
  const response = await gateway.deposit(paymentId)
  depositOptions = (response.options ?? []).filter((/** @type {DepositOption} */ o) => o.kind === "deposit")
  if (!depositOptions.some((o) => o.asset === depositAsset)) depositAsset = depositOptions[0]?.asset ?? ""
}

const chosenDeposit = () => depositOptions.find((o) => o.asset === depositAsset)

/** @param {DepositOption} option */
const qrUrl = (option) =>
  `${window.location.pathname.replace(/\/+$/, "")}/deposit-qr.svg?asset=${encodeURIComponent(option.asset)}&value=${encodeURIComponent(option.amount.value)}`

/**
 * The deadline of a deposit (Unix seconds): its amount's expiry, at the latest the payment's.
 *
 * @param {DepositOption} option
 */
const depositDeadline = (option) => Math.min(option.expiresAt ?? Number.POSITIVE_INFINITY, info?.expiresAt ?? Number.POSITIVE_INFINITY)

function stopWatching() {
  watching?.abort()
  watching = null
}

/**
 * What to send where, for the chosen network; follows the payment meanwhile.
 *
 * @param {string} [message]
 * @param {"error" | "info"} [tone]
 */
function showDeposit(message, tone = "error") {
  const option = chosenDeposit()
  if (option === undefined) return showConnect(message)
  path = "deposit"
  const details = h("div", { class: "deposit-details" })
  const received = h("div", { class: "deposit-received" })
  const waiting = h("span", {})
  const render = (/** @type {DepositOption} */ chosen) => {
    waiting.textContent = `Waiting for your transfer on ${networkOf(chosen)}. This page updates by itself when it arrives.`
    // The address takes the network's own coin when it is offered there (its factory sweeps it).
    const takesCoin = depositOptions.some((o) => o.network === chosen.network && isCoin(o))
    replace(details, depositDetails(chosen, { qrUrl: qrUrl(chosen), deadline: depositDeadline(chosen), now: nowSeconds(), takesCoin }))
  }
  render(option)
  showView("deposit", [
    h("h1", {}, "Pay from an exchange or another wallet"),
    h("p", { class: "waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), waiting),
    alertBox(message, tone),
    networkPicker(depositOptions, depositAsset, (next) => {
      depositAsset = next.asset
      render(next)
    }),
    received,
    details,
    h("p", { class: "other-path" }, h("button", {
      type: "button",
      class: "button link inline",
      onclick: () => {
        path = "wallet"
        stopWatching()
        back()
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
        return handleError(error, "deposit")
      }
      await sleep(2000)
      continue
    }
    if (!stillHere()) return
    if (status !== "requires_action") {
      stopWatching()
      paidAmount = chosenDeposit()?.amount ?? null
      return void follow(status).catch((error) => handleError(error, "deposit"))
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
  if (requoting) return
  requoting = true
  try {
    await loadDeposit()
    if (main.dataset["view"] === "deposit") showDeposit(message, "info")
  } catch (error) {
    if (main.dataset["view"] === "deposit") handleError(error, "deposit")
  } finally {
    requoting = false
  }
}

/** Asks for a new quote once the shown amount's rate ran out (same address, new amount). */
async function requoteDeposit() {
  const option = chosenDeposit()
  if (option === undefined || option.expiresAt === null || option.expiresAt > nowSeconds()) return
  await reloadDeposit("The amount was updated to the current rate. Send exactly the amount shown now.")
}

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
 * What an ERC-20 `approve` action (selector 0x095ea7b3) allows: "zero" (a reset), "some", or null
 * when the action is not an approve.
 *
 * @param {WalletRpc} action
 * @returns {"zero" | "some" | null}
 */
function approveKind(action) {
  const tx = /** @type {{ data?: unknown }} */ (action.params[0] ?? {})
  if (typeof tx.data !== "string" || !tx.data.toLowerCase().startsWith("0x095ea7b3")) return null
  return /^0*$/.test(tx.data.slice(10 + 64)) ? "zero" : "some"
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
  if (approve === "zero") {
    return {
      title: `Reset your ${symbol} allowance`,
      label: `Reset the ${symbol} allowance to zero (a transaction)`,
      why: `${symbol} only changes an allowance through zero. Confirm the transaction in ${walletName} that sets it to zero. Nothing is paid yet; you pay its network fee.`
    }
  }
  if (approve === "some") {
    return {
      title: `Allow ${symbol} once`,
      label: `Allow ${symbol} once (a transaction, only the first time)`,
      why: `${symbol} cannot be paid with a signature alone: confirm the transaction in ${walletName} that lets the Permit2 contract move ${symbol} for the payments you sign. Nothing is paid yet; you pay its network fee, once.`
    }
  }
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
  const walletName = wallet?.info.name ?? "your wallet"
  const rpcs = option.actions.flatMap((a) => (a.type === "walletRpc" ? [a.data] : []))
  const index = rpcs.indexOf(action)
  const current = describeAction(action, option, walletName)
  const switching = `It may first ask to switch to ${network}.`
  if (rpcs.length < 2 || index < 0) {
    showWorking(current.title, `${current.why} ${switching}`)
  } else {
    showWorking(current.title, `Step ${index + 1} of ${rpcs.length}. ${current.why} ${switching}`,
      h("ol", { class: "wallet-steps" }, rpcs.map((rpc, i) =>
        h("li", { class: i === index ? "current" : null, "aria-current": i === index ? "step" : null },
          describeAction(rpc, option, walletName).label, i < index ? h("span", { class: "step-done" }, " · done") : null))))
  }
  return runWalletRpc(/** @type {Wallet} */ (wallet).provider, action, network)
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

async function pay() {
  const chosen = options.find((o) => keyOf(o) === selectedKey)
  if (busy || chosen === undefined || wallet === null) return
  if (timeIsUp()) return void reload()
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
      const updated = options.find((o) => keyOf(o) === keyOf(chosen))
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
    paidAmount = option.amount
    await follow(confirmed.status)
  } catch (error) {
    setBusy(false)
    handleError(error, "pay")
  }
}

/**
 * Follows the status (long polls) until it is final, then shows the outcome.
 *
 * @param {Status} status
 */
async function follow(status) {
  busy = true
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

async function cancel() {
  if (busy) return
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
 * @param {"connect" | "pay" | "cancel" | "deposit"} step
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
  if (info === null || finished || busy) return
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
  await route(/** @type {PaymentInfo} */ (info).status)
}

void start()
