// @ts-check
/**
 * The subscriptions list: who subscribed (the payer's account), to which plan, where each stands,
 * what a period takes and when the next charge is due or why it stopped, newest first. The plan
 * filter lives in the address (`?plan=pln_…`), so Back and reloads keep it.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatAmount, shortAddress } from "./format.js"
import { addressOf, tokenAmount } from "./chain.js"
import { field, select } from "./forms.js"
import { perPeriod } from "./periods.js"
import { planDirectory, subscriptionTabs } from "./plans.js"
import { go, link, pager, statusBadge, table, time, withQuery } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

const path = "/dashboard/subscriptions"

/**
 * When period `index` of `subscription` begins (Unix seconds), or null when the term ends before.
 *
 * @param {{ start: number, periodSeconds: number, periods: number | null }} subscription
 * @param {number} index
 */
export function periodBegins(subscription, index) {
  if (subscription.periods !== null && index >= subscription.periods) return null
  return subscription.start + index * subscription.periodSeconds
}

const cancelledBy = /** @type {Record<string, string>} */ ({ merchant: "Cancelled by the merchant", payer: "Cancelled by the payer" })
const endedBecause = /** @type {Record<string, string>} */ ({
  completed: "Completed: every payment made",
  unpaid: "Ended: a payment failed after every retry",
  not_subscribed: "Never started: the payer's approval did not reach the chain in time",
  replaced: "Replaced: the payer moved to new terms"
})

/**
 * Why a subscription stopped, in a merchant's words, or null while it runs.
 *
 * @param {{ status: string, cancelledBy: string | null, endedReason: string | null }} subscription
 */
export function stoppedWords(subscription) {
  if (subscription.status === "cancelled") return cancelledBy[subscription.cancelledBy ?? ""] ?? "Cancelled"
  if (subscription.status === "ended") return endedBecause[subscription.endedReason ?? ""] ?? "Ended"
  return null
}

/**
 * What a period takes from the payer: "10.00 TUSDC / month".
 *
 * @param {import("./context.js").DashboardConfig} config
 * @param {{ asset: string, amountPerPeriod: string, periodSeconds: number }} subscription
 */
export function subscriptionAmount(config, subscription) {
  return perPeriod(tokenAmount(config, subscription.asset, subscription.amountPerPeriod, false), subscription.periodSeconds)
}

/**
 * The list's "next charge" cell: the start of the next period (the list has no charges: the one
 * under way is being charged), a retry, or why it stopped.
 *
 * @param {any} subscription
 * @param {number} now Unix seconds
 */
function nextCharge(subscription, now) {
  const stopped = stoppedWords(subscription)
  if (stopped !== null) return h("span", { class: "muted" }, stopped)
  if (subscription.status === "past_due") return "Retrying a failed payment"
  if (subscription.status === "paused") return "Paused: nothing is charged"
  const index = Math.max(0, Math.ceil((now - subscription.start) / subscription.periodSeconds))
  const due = periodBegins(subscription, index)
  return due === null ? "—" : time(due)
}

/** @param {Context} context */
export async function showSubscriptions(context) {
  const { api, config, query } = context
  const planId = query.get("plan") ?? ""
  const cursor = query.get("cursor") ?? ""
  const [page, plans] = await Promise.all([api.get("/v1/subscriptions", { planId, cursor, limit: "20" }), planDirectory(api)])
  if (!context.isCurrent()) return

  // Two plans may share a name: the price tells them apart.
  const planChoice = select("subscription-plan", [["", "All plans"], ...[...plans.values()].map((p) =>
    /** @type {const} */ ([p.planId, `${p.name} · ${perPeriod(formatAmount(p.amount), p.periodSeconds)}${p.active ? "" : " (inactive)"}`]))], planId)
  const filter = h("form", {
    class: "plan-filter",
    role: "search",
    "aria-label": "Filter subscriptions",
    onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault()
      go(withQuery(path, query, { plan: planChoice.value, cursor: "" }))
    }
  }, field("Plan", planChoice), h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button primary small" }, "Show")))

  /** @type {ReadonlyArray<any>} */
  const subscriptions = page.data
  const now = Date.now() / 1000
  showView("subscriptions", [
    h("div", { class: "title-row" }, h("h1", {}, "Subscriptions"), subscriptionTabs(path)),
    plans.size === 0 ? null : filter,
    subscriptions.length === 0
      ? h("p", { class: "summary-line" },
        planId !== "" ? "No one has subscribed to this plan yet." : "No subscriptions yet. Buyers subscribe on a plan's checkout link: ",
        planId !== "" ? null : link("/dashboard/subscriptions/plans", {}, plans.size === 0 ? "create a plan" : "see your plans"))
      : table("Subscriptions, newest first", ["Payer", "Plan", "Status", "Amount", "Next charge", "Created"], subscriptions.map((s) => {
        const payer = addressOf(s.payer)
        return [
          link(`${path}/${encodeURIComponent(s.id)}`, { class: "strong id nowrap", title: payer }, shortAddress(payer)),
          plans.get(s.planId)?.name ?? s.planId,
          statusBadge(s.status),
          h("span", { class: "strong nowrap-wide" }, subscriptionAmount(config, s)),
          nextCharge(s, now),
          h("span", { class: "nowrap" }, time(s.createdAt))
        ]
      })),
    pager(path, query, page.nextCursor, "Older subscriptions")
  ])
}
