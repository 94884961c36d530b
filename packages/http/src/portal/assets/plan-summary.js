// @ts-check
/**
 * The header of the subscription pages (the plan's checkout and the payer's page): the merchant,
 * a "Test mode" badge in sandbox, the plan's name and its price per period in words ("10.00 TUSDC
 * every month"), with the lines the page adds below (the trial, the term); and the term in words.
 *
 * @module
 */
import { byId, h, replace } from "./dom.js"
import { formatAmount, formatEvery } from "./format.js"
import { merchantAvatar } from "./views.js"

/** @typedef {import("./format.js").Amount} Amount */

/**
 * How many payments the term has: "2 payments", or "Until you cancel".
 *
 * @param {number | null} periods
 */
export function termText(periods) {
  return periods === null ? "Until you cancel" : `${periods} payment${periods === 1 ? "" : "s"}`
}

/**
 * Fills the page's header.
 *
 * @param {{ merchant: { name: string, iconUrl?: string | null }, mode: "live" | "sandbox", planName: string, amount: Amount, periodSeconds: number,
 *   lines?: ReadonlyArray<string> }} plan
 */
export function renderPlanSummary(plan) {
  const summary = byId("summary", HTMLElement)
  const lines = plan.lines ?? []
  replace(
    summary,
    h("div", { class: "merchant" },
      merchantAvatar(plan.merchant),
      h("div", { class: "merchant-text" }, h("p", { class: "merchant-name" }, plan.merchant.name)),
      plan.mode === "sandbox" ? h("span", { class: "badge test-mode", title: "A sandbox plan: no real funds move" }, "Test mode") : null),
    h("p", { class: "plan-name" }, plan.planName),
    h("p", { class: "amount plan-price" }, formatAmount(plan.amount), " ", h("span", { class: "per" }, formatEvery(plan.periodSeconds))),
    lines.length === 0 ? null : h("ul", { class: "plan-terms" }, lines.map((line) => h("li", {}, line)))
  )
  summary.hidden = false
}
