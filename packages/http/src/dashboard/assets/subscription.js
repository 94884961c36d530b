// @ts-check
/**
 * A subscription's page: its plan, the payer's account, what each period takes, its term, when
 * the next charge is due or why it stopped, its payments period by period, the payer's manage link
 * to send them, and Cancel (after a confirmation) while it runs.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatAmount, shortAddress } from "./format.js"
import { addressOf, transactionLink } from "./chain.js"
import { chargesPanel } from "./charges.js"
import { actionButton } from "./forms.js"
import { perPeriod, termWords } from "./periods.js"
import { periodBegins, stoppedWords, subscriptionAmount } from "./subscriptions.js"
import { alertBox, announce, copyable, details, link, messageOf, orNotFound, section, statusBadge, time } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/**
 * The summary's "next charge" row: a pending charge's next try, else the start of the first period
 * not charged yet; why it stopped once it did.
 *
 * @param {any} subscription with its `charges`
 * @returns {readonly [string, import("./dom.js").Child]}
 */
function nextRow(subscription) {
  const stopped = stoppedWords(subscription)
  if (stopped !== null) return ["Stopped", stopped]
  if (subscription.status === "paused") return ["Next charge", "None while paused: resumed, it charges from its next period"]
  /** @type {ReadonlyArray<import("./charges.js").Charge>} */
  const charges = subscription.charges
  const pending = charges.find((c) => c.status === "pending")
  if (pending !== undefined && pending.failedAttempts > 0) return ["Next try", time(pending.nextAttemptAt)]
  const due = pending?.nextAttemptAt ?? periodBegins(subscription, charges.filter((c) => c.status !== "pending").length)
  return ["Next charge", due === null ? "None: the term is over" : time(due)]
}

/**
 * @param {Context} context
 * @param {string} id
 */
export async function showSubscription(context, id) {
  const { api, config } = context
  /** @type {any} */
  const subscription = await orNotFound(context, () => api.get(`/v1/subscriptions/${encodeURIComponent(id)}`), {
    name: "subscription-not-found",
    title: "Subscription not found",
    text: `There is no subscription ${id} for this account in ${context.session.mode === "sandbox" ? "test" : "live"} mode.`,
    back: ["/dashboard/subscriptions", "Back to subscriptions"]
  })
  if (subscription === undefined) return
  const [plan, merchant] = await Promise.all([
    api.get(`/v1/plans/${encodeURIComponent(subscription.planId)}`).catch(() => null),
    api.get(`/v1/merchants/${encodeURIComponent(subscription.merchantId)}`).catch(() => null)
  ])
  if (!context.isCurrent()) return

  const problem = h("div", { id: "subscription-problem" })
  const payer = addressOf(subscription.payer)
  const running = stoppedWords(subscription) === null
  const cancel = actionButton({
    label: "Cancel subscription",
    className: "secondary danger-outline",
    problem,
    confirm: {
      title: "Cancel this subscription?",
      text: `No payment is taken from ${shortAddress(payer)} after this; payments already made stay paid. This cannot be undone.`,
      confirm: "Cancel subscription",
      danger: true
    },
    action: async () => {
      await api.post(`/v1/subscriptions/${encodeURIComponent(id)}/cancel`)
      announce("Subscription cancelled.")
      if (context.isCurrent()) await showSubscription({ ...context, followed: true }, id).catch((error) => problem.replaceChildren(alertBox(messageOf(error))))
    }
  })
  // Pausing and resuming: the merchant's, while it runs (a subscription not yet on chain can only be cancelled).
  /** @param {"pause" | "resume"} action */
  const toggle = (action) =>
    actionButton({
      label: action === "pause" ? "Pause" : "Resume",
      className: "secondary",
      problem,
      action: async () => {
        await api.post(`/v1/subscriptions/${encodeURIComponent(id)}/${action}`)
        announce(action === "pause" ? "Subscription paused." : "Subscription resumed: charged again from its next period.")
        if (context.isCurrent()) await showSubscription({ ...context, followed: true }, id).catch((error) => problem.replaceChildren(alertBox(messageOf(error))))
      }
    })
  const pausing = subscription.status === "paused" ? toggle("resume") : subscription.status === "active" || subscription.status === "past_due" ? toggle("pause") : null
  const begins = subscription.start > Date.now() / 1000 ? "Starts" : "Started"
  /** @param {string | null} hash */
  const tx = (hash) => (hash === null ? null : transactionLink(config, subscription.network, hash))

  showView("subscription", [
    h("p", { class: "crumbs" }, link("/dashboard/subscriptions", {}, "← Subscriptions")),
    h("div", { class: "title-row" },
      h("h1", {}, `${plan?.name ?? "Subscription"} · `, h("span", { class: "nowrap" }, shortAddress(payer))),
      h("span", { id: "subscription-status", "data-status": subscription.status }, statusBadge(subscription.status))),
    problem,
    h("div", { class: "actions-row" }, running ? pausing : null, running ? cancel : null),
    h("div", { class: "columns" },
      section("Summary", details([
        ["Plan", plan === null ? subscription.planId : `${plan.name} · ${perPeriod(formatAmount(plan.amount), plan.periodSeconds)}`],
        ["Merchant", merchant === null ? subscription.merchantId : link(`/dashboard/merchants/${subscription.merchantId}`, {}, merchant.merchantName)],
        ["Payer account", copyable(payer, "payer account")],
        ["Amount per period", subscriptionAmount(config, subscription)],
        ["Term", termWords(subscription.periods, subscription.periodSeconds)],
        [begins, time(subscription.start)],
        nextRow(subscription),
        ["Created", time(subscription.createdAt)],
        ["Subscription id", copyable(subscription.id, "subscription id")]
      ])),
      h("div", {},
        section("Payer's manage link",
          h("p", { class: "hint" }, "The payer sees the subscription and can cancel it there: send it with every receipt."),
          copyable(subscription.manageUrl, "manage link", true)),
        subscription.subscribeTx === null && subscription.cancelTx === null ? null : section("Transactions", details([
          subscription.subscribeTx === null ? null : ["Subscribed", tx(subscription.subscribeTx)],
          subscription.cancelTx === null ? null : ["Cancelled", tx(subscription.cancelTx)]
        ])))),
    section("Payments", chargesPanel(config, subscription))
  ], { focus: context.followed !== true })
}
