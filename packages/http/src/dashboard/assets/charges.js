// @ts-check
/**
 * A subscription's payments, one charge per period: a strip of its periods coloured by how each
 * went (paid, failed, under way, to come, or not charged once it stopped), to see at a glance, and
 * the table of its charges, latest first (when the period began, the amount, the transaction,
 * failed attempts and why the last one failed).
 *
 * @module
 */
import { h } from "./dom.js"
import { tokenAmount, transactionLink } from "./chain.js"
import { periodBegins } from "./subscriptions.js"
import { statusBadge, table, time } from "./ui.js"

/** @typedef {{ periodIndex: number, periodStart: number, amount: string, status: string, failedAttempts: number, nextAttemptAt: number | null, txHash: string | null, lastError: string | null }} Charge */

/** How a period went, in the strip's words, in the legend's order. */
const states = /** @type {const} */ ([
  ["succeeded", "paid"],
  ["failed", "failed"],
  ["skipped", "skipped (paused)"],
  ["pending", "under way"],
  ["ahead", "to come"],
  ["none", "not charged"]
])

const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" })

/**
 * The strip: every period of the term (open-ended: those charged and, while it runs, the next).
 *
 * @param {any} subscription
 * @param {ReadonlyArray<Charge>} charges
 */
function periodStrip(subscription, charges) {
  const byIndex = new Map(charges.map((c) => [c.periodIndex, c]))
  const running = subscription.status !== "cancelled" && subscription.status !== "ended"
  const charged = charges.reduce((most, c) => Math.max(most, c.periodIndex + 1), 0)
  const count = subscription.periods ?? charged + (running ? 1 : 0)
  const periods = Array.from({ length: count }, (_, index) => {
    const state = byIndex.get(index)?.status ?? (running ? "ahead" : "none")
    const begins = periodBegins(subscription, index)
    const label = states.find(([name]) => name === state)?.[1] ?? state
    return { state, title: `Period ${index + 1}${begins === null ? "" : `, from ${day.format(new Date(begins * 1000))}`}: ${label}` }
  })
  const counts = states
    .map(([state, label]) => ({ state, label, count: periods.filter((p) => p.state === state).length }))
    .filter((c) => c.count > 0)
  const summary = counts.map((c) => `${c.count} ${c.label}`).join(", ")
  return h("figure", { class: "period-strip" },
    h("div", { class: "periods", role: "img", "aria-label": `Periods: ${summary}.` },
      periods.map((p) => h("span", { class: `period period-${p.state}`, title: p.title }))),
    h("figcaption", { class: "chart-legend", "aria-hidden": "true" },
      counts.map((c) => h("span", { class: `key key-${c.state}` }, `${c.count} ${c.label}`))))
}

/**
 * The payments section's content.
 *
 * @param {import("./context.js").DashboardConfig} config
 * @param {any} subscription with its `charges`
 */
export function chargesPanel(config, subscription) {
  /** @type {ReadonlyArray<Charge>} */
  const charges = subscription.charges
  const of = subscription.periods === null ? "" : ` of ${subscription.periods}`
  return [
    periodStrip(subscription, charges),
    charges.length === 0
      ? h("p", { class: "muted" }, "No payment taken yet.")
      : table("Payments, latest period first", ["Period", "Began", "Amount", "Status", "Transaction", "Failed attempts"], [...charges].reverse().map((c) => [
        h("span", { class: "nowrap" }, `${c.periodIndex + 1}${of}`),
        h("span", { class: "nowrap" }, time(c.periodStart)),
        h("span", { class: "amount-cell" }, tokenAmount(config, subscription.asset, c.amount, false)),
        h("span", { class: "stack" },
          statusBadge(c.status),
          c.nextAttemptAt === null ? null : h("span", { class: "muted" }, "Next try ", time(c.nextAttemptAt))),
        c.txHash === null ? "—" : transactionLink(config, subscription.network, c.txHash),
        c.failedAttempts === 0 && c.lastError === null ? "None" : h("span", { class: "stack" },
          String(c.failedAttempts),
          c.lastError === null ? null : h("span", { class: "muted" }, c.lastError))
      ]))
  ]
}
