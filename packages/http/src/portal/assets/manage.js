// @ts-check
/**
 * A payer's page of a subscription (`{subscribe_url}/manage/{subscriptionId}#{token}`). The
 * link's token is in its fragment, which browsers never send to a server: the page reads it and
 * asks the gateway with it. It shows where the subscription stands, the most each period takes,
 * the next charge, the charges so far (date, amount, status, transaction), and cancels it after a
 * confirm step.
 *
 * Everything goes through the gateway API with the portal's public App-Id; nothing is stored in
 * the browser.
 *
 * @module
 */
import { h, pageConfig, randomId, showView } from "./dom.js"
import { formatAmount, formatDateTime, formatEvery } from "./format.js"
import { createGateway, GatewayError } from "./gateway.js"
import { renderPlanSummary, termText } from "./plan-summary.js"
import { alertBox, showBusy, showError } from "./views.js"

/** @typedef {import("./format.js").Amount} Amount */
/**
 * @typedef {{ id: string, status: "subscribing" | "active" | "past_due" | "paused" | "cancelled" | "ended",
 *   endedReason: "completed" | "unpaid" | "not_subscribed" | "replaced" | null,
 *   cancelledBy: "merchant" | "payer" | null, payer: string, periodSeconds: number, start: number, periods: number | null }} SubscriptionRecord
 */
/**
 * @typedef {{ periodIndex: number, periodStart: number, amount: string, status: "pending" | "succeeded" | "failed" | "skipped", failedAttempts: number,
 *   nextAttemptAt: number | null, txHash: string | null }} Charge
 */
/**
 * @typedef {{ subscription: SubscriptionRecord, amountPerPeriod: Amount, charges: ReadonlyArray<Charge>, plan: { name: string },
 *   merchant: { name: string, iconUrl: string | null } }} PayerView
 */

const config = /** @type {{ subscriptionId: string, appId: string, mode: "live" | "sandbox" }} */ (pageConfig())
const gateway = createGateway({ appId: config.appId, clientId: randomId() })
const token = window.location.hash.slice(1)
let busy = false

/**
 * Where the subscription stands, in one line.
 *
 * @param {PayerView} view
 */
function statusLine(view) {
  const { subscription, merchant } = view
  switch (subscription.status) {
    case "subscribing":
      return "Starting: your subscription is being set up."
    case "active":
      return "Active"
    case "past_due":
      return "Payment overdue: the last charge could not be made (your balance may be too low). It is tried again."
    case "paused":
      return `Paused by ${merchant.name}: nothing is charged until it resumes.`
    case "cancelled":
      return subscription.cancelledBy === "merchant" ? `Cancelled by ${merchant.name} — no further charges` : "Cancelled — no further charges"
    case "ended":
      return subscription.endedReason === "completed"
        ? "Ended: every payment was made"
        : subscription.endedReason === "unpaid"
        ? "Ended: a charge could not be made"
        : subscription.endedReason === "replaced"
        ? "Ended: replaced by your new subscription"
        : "Ended: the subscription never started"
  }
}

/**
 * When the next charge is due (Unix seconds), or null when none will be.
 *
 * @param {PayerView} view
 */
function nextCharge(view) {
  const { subscription, charges } = view
  if (subscription.status === "cancelled" || subscription.status === "ended" || subscription.status === "paused") return null
  const pending = charges.find((c) => c.status === "pending")
  if (pending !== undefined) return pending.nextAttemptAt ?? pending.periodStart
  const index = charges.reduce((next, c) => Math.max(next, c.periodIndex + 1), 0)
  if (subscription.periods !== null && index >= subscription.periods) return null
  return subscription.start + index * subscription.periodSeconds
}

/** @param {Charge} charge */
function chargeStatus(charge) {
  if (charge.status === "succeeded") return "Paid"
  if (charge.status === "failed") return "Not paid"
  if (charge.status === "skipped") return "Not charged (paused)"
  return charge.failedAttempts > 0 ? "Failed, tried again" : "Processing"
}

/**
 * The charges so far, newest first.
 *
 * @param {PayerView} view
 */
function chargeList(view) {
  const now = gateway.now()
  if (view.charges.length === 0) return h("p", { class: "muted" }, "No charge yet.")
  const amountOf = (/** @type {Charge} */ charge) => formatAmount({ ...view.amountPerPeriod, value: charge.amount })
  return h("ul", { class: "charges" }, [...view.charges].reverse().map((charge) =>
    h("li", { class: `charge ${charge.status}` },
      h("span", { class: "charge-amount" }, amountOf(charge)),
      h("span", { class: `charge-status ${charge.status}` }, chargeStatus(charge)),
      h("span", { class: "charge-date" }, formatDateTime(charge.periodStart, now)),
      charge.txHash === null ? null : h("span", { class: "charge-tx" }, "Transaction ", h("code", { class: "tx-hash" }, charge.txHash)))))
}

/**
 * @param {PayerView} view
 * @param {string} [message]
 */
function showSubscription(view, message) {
  const { subscription } = view
  const now = gateway.now()
  const next = nextCharge(view)
  const final = subscription.status === "cancelled" || subscription.status === "ended"
  const made = view.charges.filter((c) => c.status === "succeeded").length
  // "Until you cancel" no longer says anything once it is cancelled: the charges below tell what was paid.
  const term = subscription.periods !== null ? `${termText(subscription.periods)} (${made} made)` : final ? null : termText(null)
  renderPlanSummary({ merchant: view.merchant, mode: config.mode, planName: view.plan.name, amount: view.amountPerPeriod, periodSeconds: subscription.periodSeconds })
  showView("subscription", [
    h("h1", {}, "Your subscription"),
    h("p", { class: `status ${subscription.status}`, id: "subscription-status" }, statusLine(view)),
    alertBox(message),
    h("dl", { class: "receipt" },
      h("div", {}, h("dt", {}, "Amount"), h("dd", {}, `At most ${formatAmount(view.amountPerPeriod)} ${formatEvery(subscription.periodSeconds)}`)),
      next === null ? null : h("div", {}, h("dt", {}, "Next charge"), h("dd", {}, formatDateTime(next, now))),
      term === null ? null : h("div", {}, h("dt", {}, "Term"), h("dd", {}, term)),
      h("div", {}, h("dt", {}, "Paid from"), h("dd", { class: "tx-hash" }, subscription.payer.split(":")[2] ?? subscription.payer))),
    h("h2", {}, "Charges"),
    chargeList(view),
    final ? null : h("div", { class: "actions" },
      h("button", { type: "button", class: "button secondary", onclick: () => showCancel(view) }, "Cancel subscription"))
  ])
}

/** @param {PayerView} view */
function showCancel(view) {
  showView("cancel", [
    h("h1", {}, "Cancel this subscription?"),
    h("p", {}, `${view.merchant.name} will not be able to charge you again. Charges already made are not refunded.`),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "button danger", onclick: () => void cancel(view) }, "Yes, cancel subscription"),
      h("button", { type: "button", class: "button secondary", onclick: () => showSubscription(view) }, "Keep subscription"))
  ])
}

/** @param {PayerView} view */
async function cancel(view) {
  if (busy) return
  busy = true
  showBusy("working", "Cancelling", "One moment…")
  try {
    showSubscription(await gateway.cancelSubscription(config.subscriptionId, token))
  } catch (error) {
    // Ended meanwhile (its last charge made): the page shows it as it now stands.
    if (error instanceof GatewayError && error.code === "invalid_state") return void load()
    showSubscription(view, error instanceof GatewayError ? error.message : "Something went wrong. Please try again.")
  } finally {
    busy = false
  }
}

function showNotFound() {
  showView("not-found", [
    h("h1", {}, "Subscription not found"),
    h("p", {}, "This link is not valid or is incomplete. Open the whole link you got when you subscribed.")
  ])
}

async function load() {
  if (token === "") return showNotFound()
  try {
    showSubscription(await gateway.subscription(config.subscriptionId, token))
  } catch (error) {
    if (error instanceof GatewayError && error.code === "payment_not_found") return showNotFound()
    showError(error instanceof GatewayError ? error.message : "Your subscription could not be loaded.")
  }
}

void load()
