// @ts-check
/**
 * A plan's hosted checkout (`{subscribe_url}/{planId}`): the merchant, the plan and its price per
 * period in words, the trial and the term, and what the buyer's one signature allows. The buyer
 * connects a browser wallet, chooses the token when the plan takes several, and subscribes: the
 * page asks the gateway for the terms of the buyer's account, lets Permit2 move the token when the
 * allowance falls short (a transaction, mined before going on: the gateway refuses a permit it
 * could not charge), has the wallet sign the permit, subscribes with it, and shows the
 * confirmation with the payer's link to manage the subscription. A plan that takes no
 * subscribers says so.
 *
 * Everything goes through the gateway API with the portal's public App-Id; nothing is stored in
 * the browser.
 *
 * @module
 */
import { byId, h, pageConfig, randomId, replace, showView } from "./dom.js"
import { formatAmount, formatDateTime, formatEvery, formatSpan, shortAddress } from "./format.js"
import { createGateway, GatewayError } from "./gateway.js"
import { approvalsNeeded, approveKind, describeApproval, readAllowance, tokenAddress, waitForReceipt } from "./permit2.js"
import { renderPlanSummary, termText } from "./plan-summary.js"
import { alertBox, noWalletNote, showBusy, showError, tokenIcons, walletList, walletSteps } from "./views.js"
import { connect, discoverWallets, ensureChain, runWalletRpc, WalletError } from "./wallet.js"

/** @typedef {import("./format.js").Amount} Amount */
/** @typedef {import("./format.js").AmountDisplay} AmountDisplay */
/** @typedef {import("./wallet.js").Wallet} Wallet */
/** @typedef {import("./wallet.js").WalletRpc} WalletRpc */
/** @typedef {{ asset: string, chainId: string, display: AmountDisplay }} PlanAsset */
/**
 * @typedef {{ planId: string, name: string, merchant: { name: string, iconUrl: string | null }, amount: Amount, periodSeconds: number,
 *   trialSeconds: number, periods: number | null, active: boolean, assets: ReadonlyArray<PlanAsset> }} PlanCheckout
 */
/** @typedef {{ offer: string, amountPerPeriod: Amount, start: number, expiresAt: number, typedData: string, permit2: string }} Offer */
/** @typedef {{ subscription: { payer: string, start: number }, manageUrl: string }} Subscribed */

const config = /** @type {{ planId: string, appId: string, mode: "live" | "sandbox" }} */ (pageConfig())
const gateway = createGateway({ appId: config.appId, clientId: randomId() })
const main = byId("view", HTMLElement)

const state = {
  /** @type {PlanCheckout | null} */
  plan: null,
  /** @type {Wallet | null} */
  wallet: null,
  /** The connected account (0x address). */
  account: "",
  /** The chosen token (CAIP-19). */
  asset: "",
  busy: false
}

const discovery = discoverWallets(() => {
  if (main.dataset["view"] === "connect") showConnect(undefined, { focus: false })
})

const currentPlan = () => /** @type {PlanCheckout} */ (state.plan)
const chosenAsset = () => currentPlan().assets.find((a) => a.asset === state.asset) ?? /** @type {PlanAsset} */ (currentPlan().assets[0])
const networkName = (/** @type {PlanAsset} */ asset) => asset.display.networkName ?? asset.chainId

/** "At most 10.00 TUSDC every month"; a priced plan's is paid in the chosen token, at the rate when the buyer signs. */
function priceText() {
  const plan = currentPlan()
  const every = formatEvery(plan.periodSeconds)
  if (!plan.amount.unit.startsWith("iso4217/")) return `At most ${formatAmount(plan.amount)} ${every}`
  const symbol = chosenAsset().display.assetSymbol
  return `At most ${formatAmount(plan.amount)} in ${symbol} ${every} (the ${symbol} amount is fixed when you sign)`
}

/** What the buyer's one signature allows, in plain words: shown before connecting and before subscribing. */
function allowances() {
  const plan = currentPlan()
  return h("section", { class: "allows", "aria-labelledby": "allows-title" },
    h("h2", { id: "allows-title" }, "What your signature allows"),
    h("ul", {},
      h("li", {}, `${priceText()}, ${plan.periods === null ? "until you cancel" : `${termText(plan.periods).toLowerCase()} in all`}.`),
      h("li", {}, `Paid only to ${plan.merchant.name}: nobody else can use your signature.`),
      h("li", {}, "Cancel any time, with the link you get once subscribed.")))
}

/** The header's lines under the price: when the first charge is, and how long it runs. */
function planLines() {
  const plan = currentPlan()
  const now = gateway.now()
  const first = plan.trialSeconds > 0
    ? `Free for ${formatSpan(plan.trialSeconds).text}: first charge on ${formatDateTime(now + plan.trialSeconds, now)}`
    : "First charge when you subscribe"
  return [first, plan.periods === null ? termText(null) : `${termText(plan.periods)}, then it ends`]
}

/** @param {ReadonlyArray<string>} lines */
function renderSummary(lines) {
  const plan = currentPlan()
  renderPlanSummary({ merchant: plan.merchant, mode: config.mode, planName: plan.name, amount: plan.amount, periodSeconds: plan.periodSeconds, lines })
}

/**
 * @param {string} [message]
 * @param {{ focus?: boolean }} [options]
 */
function showConnect(message, options = {}) {
  const wallets = discovery.wallets()
  showView("connect", [
    h("h1", {}, "Subscribe with your wallet"),
    h("p", { class: "muted" }, "Connect a browser wallet to subscribe. You sign once; each charge is then taken without asking you again."),
    alertBox(message),
    wallets.length > 0 ? walletList(wallets, (w) => void choose(w)) : noWalletNote(() => { discovery.rescan(); showConnect() }),
    allowances()
  ], options)
}

/**
 * The token the plan takes, or the tokens to choose from (`changed` runs after a choice).
 *
 * @param {() => void} changed
 */
function tokenChoice(changed) {
  const assets = currentPlan().assets
  if (assets.length === 1) {
    const only = /** @type {PlanAsset} */ (assets[0])
    return h("p", { class: "paid-in" }, tokenIcons(only.display),
      h("span", {}, "Paid in ", h("strong", {}, only.display.assetSymbol), ` on ${networkName(only)}`))
  }
  return h("fieldset", { class: "options" },
    h("legend", {}, "Pay with"),
    assets.map((asset, index) => {
      const id = `asset-${index}`
      const radio = h("input", { type: "radio", name: "asset", id, value: asset.asset, checked: asset.asset === state.asset })
      radio.addEventListener("change", () => {
        state.asset = asset.asset
        changed()
      })
      return h("label", { class: "option", for: id }, radio, tokenIcons(asset.display),
        h("span", { class: "option-text" },
          h("span", { class: "option-amount" }, asset.display.assetSymbol),
          h("span", { class: "option-detail" }, `${asset.display.assetName} on ${networkName(asset)}`)))
    }))
}

/**
 * The connected wallet, the token, what the signature allows, and the button that subscribes.
 *
 * @param {string} [message]
 * @param {"error" | "info"} [tone]
 */
function showReview(message, tone = "error") {
  if (state.wallet === null) return showConnect(message)
  const allows = h("div", {})
  const hint = h("p", { class: "muted hint" })
  // The texts naming the token follow the buyer's choice in place: focus stays on the choice.
  const nameToken = () => {
    replace(allows, allowances())
    hint.textContent = `The first time you use ${chosenAsset().display.assetSymbol} this way, your wallet asks you to allow it once (a transaction: you pay its network fee), then to sign.`
  }
  nameToken()
  showView("review", [
    h("h1", {}, "Review and subscribe"),
    h("p", { class: "muted connected" }, `Connected: ${state.wallet.info.name} · ${shortAddress(state.account)} `,
      h("button", { type: "button", class: "button link inline", onclick: () => showConnect() }, "Change wallet")),
    alertBox(message, tone),
    tokenChoice(nameToken),
    allows,
    hint,
    h("div", { class: "actions" }, h("button", { type: "button", class: "button primary", onclick: () => void subscribe() }, "Subscribe"))
  ])
}

/** @param {Wallet} choice */
async function choose(choice) {
  if (state.busy) return
  state.busy = true
  showBusy("working", "Connect your wallet", `Approve the connection in ${choice.info.name}.`)
  try {
    const shared = await connect(choice.provider)
    if (shared[0] === undefined) throw new WalletError("Your wallet shared no account.")
    state.wallet = choice
    state.account = shared[0]
    state.busy = false
    showReview()
  } catch (error) {
    state.busy = false
    showConnect(error instanceof WalletError ? error.message : "Something went wrong. Please try again.")
  }
}

/**
 * Runs the wallet's steps (the approvals, then the signature), each shown with what it is and why;
 * answers the signature.
 *
 * @param {PlanAsset} asset
 * @param {Offer} offer
 * @param {ReadonlyArray<WalletRpc>} approvals
 */
async function walletWork(asset, offer, approvals) {
  const provider = /** @type {Wallet} */ (state.wallet).provider
  const walletName = /** @type {Wallet} */ (state.wallet).info.name
  const network = networkName(asset)
  const symbol = asset.display.assetSymbol
  const terms = `at most ${formatAmount(offer.amountPerPeriod)} ${formatEvery(currentPlan().periodSeconds)} to ${currentPlan().merchant.name}`
  const labels = [...approvals.map((a) => describeApproval(approveKind(a) ?? "some", symbol, walletName).label), "Sign the subscription (no network fee)"]
  const stepOf = (/** @type {number} */ index) => (labels.length > 1 ? walletSteps(labels, index) : undefined)
  const counted = (/** @type {number} */ index, /** @type {string} */ text) => (labels.length > 1 ? `Step ${index + 1} of ${labels.length}. ${text}` : text)
  for (const [index, approval] of approvals.entries()) {
    const step = describeApproval(approveKind(approval) ?? "some", symbol, walletName)
    showBusy("working", step.title, counted(index, step.why), stepOf(index))
    const hash = await runWalletRpc(provider, approval, network)
    showBusy("working", "Waiting for the network", `Your ${symbol} approval is being confirmed on ${network}. This usually takes a few seconds.`, stepOf(index))
    await waitForReceipt(provider, hash)
  }
  const index = approvals.length
  showBusy("working", labels.length > 1 ? "Sign the subscription" : "Sign in your wallet",
    counted(index, `Check the subscription in ${walletName} and sign it: it allows ${terms}, and nothing else. No network fee.`), stepOf(index))
  return runWalletRpc(provider, { chain_id: asset.chainId, method: "eth_signTypedData_v4", params: [state.account, offer.typedData] }, network)
}

async function subscribe() {
  if (state.busy || state.wallet === null) return
  state.busy = true
  const asset = chosenAsset()
  const provider = state.wallet.provider
  try {
    showBusy("working", "Preparing your subscription", `One moment… Your wallet may ask to switch to ${networkName(asset)}.`)
    /** @type {Offer} */
    const offer = await gateway.offer(config.planId, `${asset.chainId}:${state.account}`, asset.asset)
    const token = tokenAddress(asset.asset)
    if (token === undefined) throw new WalletError(`This page cannot subscribe with ${asset.display.assetSymbol}.`)
    await ensureChain(provider, asset.chainId, networkName(asset))
    const allowance = await readAllowance(provider, token, state.account, offer.permit2)
    const approvals = approvalsNeeded({ chainId: asset.chainId, owner: state.account, token, spender: offer.permit2 }, allowance, BigInt(offer.amountPerPeriod.value))
    const signature = await walletWork(asset, offer, approvals)
    showBusy("working", "Subscribing", "One moment…")
    showSubscribed(await gateway.subscribe(config.planId, offer.offer, signature), offer)
  } catch (error) {
    handleError(error)
  } finally {
    state.busy = false
  }
}

/** @param {unknown} error */
function handleError(error) {
  if (error instanceof WalletError) return showReview(error.message)
  if (!(error instanceof GatewayError)) return showReview("Something went wrong. Please try again.")
  switch (error.code) {
    case "quote_expired":
      return showReview("The terms expired before you signed. Subscribe again to get new ones.", "info")
    case "invalid_state":
      return void load()
    case "payment_not_found":
      return showError("This subscription plan was not found.")
    default:
      return showReview(error.message)
  }
}

/**
 * @param {Subscribed} result
 * @param {Offer} offer
 */
function showSubscribed(result, offer) {
  const plan = currentPlan()
  const now = gateway.now()
  const payer = result.subscription.payer.split(":")[2] ?? result.subscription.payer
  // The header's "first charge" and term were the plan's; the confirmation has the subscription's own.
  renderSummary([])
  showView("subscribed", [
    h("span", { class: "outcome success", "aria-hidden": "true" }),
    h("h1", {}, "You're subscribed"),
    h("p", {}, `${plan.merchant.name} may take at most ${formatAmount(offer.amountPerPeriod)} ${formatEvery(plan.periodSeconds)} from ${shortAddress(payer)}.`),
    h("dl", { class: "receipt" },
      h("div", {}, h("dt", {}, "Plan"), h("dd", {}, plan.name)),
      h("div", {}, h("dt", {}, "First charge"), h("dd", {}, formatDateTime(result.subscription.start, now))),
      h("div", {}, h("dt", {}, "Term"), h("dd", {}, termText(plan.periods))),
      config.mode === "sandbox" ? h("div", {}, h("dt", {}, "Mode"), h("dd", {}, "Test subscription: no real funds move")) : null),
    h("div", { class: "actions" }, h("a", { class: "button primary", href: result.manageUrl, id: "manage-link" }, "Manage your subscription")),
    h("p", { class: "muted hint" }, "Keep this link (bookmark it): it shows your charges and lets you cancel at any time. Anyone who has it can do the same.")
  ])
}

/** @param {PlanCheckout} plan */
function showClosed(plan) {
  const inactive = !plan.active
  showView("closed", [
    h("h1", {}, inactive ? "This plan is closed" : "Not available just now"),
    h("p", {}, inactive
      ? `${plan.merchant.name} no longer takes new subscribers to this plan. Ask them how to subscribe now. If you already subscribed, your subscription goes on.`
      : `${plan.merchant.name} cannot take subscriptions to this plan just now. Try again later, or ask them.`)
  ])
}

async function load() {
  try {
    state.plan = /** @type {PlanCheckout} */ (await gateway.plan(config.planId))
  } catch (error) {
    return showError(error instanceof GatewayError && error.code === "payment_not_found" ? "This subscription plan was not found." : "The plan could not be loaded.")
  }
  const plan = state.plan
  const open = plan.active && plan.assets.length > 0
  if (!plan.assets.some((a) => a.asset === state.asset)) state.asset = plan.assets[0]?.asset ?? ""
  renderSummary(open ? planLines() : [])
  if (!open) return showClosed(plan)
  if (state.wallet === null) showConnect()
  else showReview()
}

void load()
