// @ts-check
/**
 * Subscription plans: the list (price per period, term, whether it takes new subscribers, its
 * checkout link to share) and a form to create one, its period picked as a number and a unit and
 * sent in seconds. Every rule is the API's: its message is shown as it is. With the subscriptions
 * list, the two views of the dashboard's Subscriptions section.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { idempotencyKey } from "./api.js"
import { formatAmount } from "./format.js"
import { actionForm, field, input, select, switchButton } from "./forms.js"
import { durationWords, perPeriod, periodUnits, termWords } from "./periods.js"
import { merchantDirectory } from "./payments.js"
import { currencyDecimals, unitsOrText } from "./units.js"
import { announce, copyButton, link, pager, section, statusBadge, table, tabs, time, withQuery } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/**
 * The Subscriptions section's views, the one shown marked.
 *
 * @param {string} current
 */
export function subscriptionTabs(current) {
  return tabs("Subscriptions section", [["/dashboard/subscriptions", "Subscriptions"], ["/dashboard/subscriptions/plans", "Plans"]], current)
}

/**
 * The partner's plans (the newest 100) by id: names and prices for the subscriptions' views.
 *
 * @param {import("./api.js").Api} api
 * @returns {Promise<Map<string, any>>}
 */
export async function planDirectory(api) {
  const page = await api.get("/v1/plans", { limit: "100" })
  return new Map(page.data.map((/** @type {any} */ plan) => [plan.planId, plan]))
}

/**
 * A number typed in the form, or -1 (which every rule of the API refuses, with its message) when
 * it is not one.
 *
 * @param {string} text
 */
const typedNumber = (text) => {
  const value = Number(text.trim())
  return text.trim() === "" || !Number.isFinite(value) ? -1 : value
}

/**
 * A length picked as a number and a unit (the unit's select named after the number's label).
 *
 * @param {string} id
 * @param {string} label
 * @param {ReadonlyArray<readonly [string, number]>} units name and seconds, as `periodUnits`
 * @param {{ unit: string, value?: string, hint: string }} options
 */
function durationPicker(id, label, units, options) {
  const count = input(id, { inputmode: "decimal", autocomplete: "off", value: options.value, "aria-describedby": `${id}-hint` })
  // A month and a year are fixed lengths here, not the calendar's: the choice says how long.
  const unit = select(`${id}-unit`, units.map(([name, seconds]) =>
    /** @type {const} */ ([name, name === "month" || name === "year" ? `${name}s (${seconds / 86_400} days)` : `${name}s`])), options.unit)
  unit.setAttribute("aria-label", `${label} (unit)`)
  return {
    element: h("div", { class: "field" },
      h("label", { for: id }, label),
      h("div", { class: "duration" }, count, unit),
      h("p", { class: "hint", id: `${id}-hint` }, options.hint)),
    /** Empty: null; else seconds (not a number: -1, which the API refuses). */
    seconds: () => {
      if (count.value.trim() === "") return null
      const length = units.find(([name]) => name === unit.value)?.[1] ?? 1
      const value = typedNumber(count.value)
      return value < 0 ? -1 : Math.round(value * length)
    }
  }
}

/** @param {Context} context */
export async function showPlans(context) {
  const { api, config, query, session } = context
  const cursor = query.get("cursor") ?? ""
  const [page, merchants] = await Promise.all([api.get("/v1/plans", { cursor, limit: "20" }), merchantDirectory(api)])
  if (!context.isCurrent()) return
  const reload = () => showPlans({ ...context, followed: true })
  const active = [...merchants.values()].filter((m) => m.status === "active")
  // Test mode takes periods of seconds (to watch renewals); live ones last a day at least.
  const units = [...periodUnits].reverse().filter(([, seconds]) => session.mode === "sandbox" || seconds >= 86_400)
  const tokens = config.assets.filter((asset) => asset.mode === session.mode)

  const merchant = select("plan-merchant", active.map((m) => [m.merchantId, m.merchantName]), active[0]?.merchantId ?? "")
  const name = input("plan-name", { required: true, placeholder: "Coffee beans, monthly" })
  const priceIn = select("plan-price-in", [["fiat", "A currency"], ...tokens.map((t) => /** @type {const} */ ([t.assetId, `${t.symbol} on ${t.networkName}`]))], "fiat")
  const currency = input("plan-currency", { value: "USD", maxlength: "3", autocomplete: "off" })
  const amount = input("plan-amount", { inputmode: "decimal", autocomplete: "off", placeholder: "10.00" })
  const period = durationPicker("plan-period", "Charged every", units, {
    unit: "month",
    value: "1",
    hint: session.mode === "sandbox" ? "Each period's payment is taken when it begins. Test mode: from 5 seconds." : "Each period's payment is taken when it begins. From a day to five years."
  })
  const trial = durationPicker("plan-trial", "Free trial (optional)", units, { unit: "day", hint: "Time from subscribing to the first payment." })
  const periods = input("plan-periods", { inputmode: "numeric", autocomplete: "off", placeholder: "Until cancelled" })

  const currencyField = field("Currency", currency)
  const amountField = field("Amount", amount, "")
  const amountHint = /** @type {HTMLElement} */ (amountField.querySelector(".hint"))
  const token = () => tokens.find((t) => t.assetId === priceIn.value)
  const shown = () => {
    const chosen = token()
    currencyField.hidden = chosen !== undefined
    amountHint.textContent = chosen === undefined
      ? "Per period, paid in tokens at the rate of the day the buyer subscribes."
      : `Per period, in ${chosen.symbol}.`
  }
  priceIn.addEventListener("change", shown)
  shown()

  const create = actionForm({
    label: "Create plan",
    className: "form link-form",
    fields: [
      field("Merchant", merchant),
      field("Name", name, "What the buyer subscribes to, shown on the plan's checkout."),
      field("Price in", priceIn),
      h("div", { class: "form-row" }, currencyField, amountField),
      period.element,
      trial.element,
      field("Number of payments (optional)", periods, "Leave it empty to charge every period until cancelled.")
    ],
    action: async () => {
      const chosen = token()
      const code = currency.value.trim().toUpperCase()
      /** @type {Record<string, unknown>} */
      const body = {
        merchantId: merchant.value,
        name: name.value,
        amount: chosen === undefined
          ? { unit: `iso4217/${code}`, value: unitsOrText(amount.value, currencyDecimals(code)) }
          : { unit: `caip19/${chosen.assetId}`, value: unitsOrText(amount.value, chosen.decimals) },
        periodSeconds: period.seconds() ?? -1
      }
      const trialSeconds = trial.seconds()
      if (trialSeconds !== null) body["trialSeconds"] = trialSeconds
      if (periods.value.trim() !== "") body["periods"] = typedNumber(periods.value)
      const made = await api.post("/v1/plans", body, idempotencyKey())
      announce(`Plan ${made.name} created.`)
      await reload()
    }
  })

  /** @type {ReadonlyArray<any>} */
  const plans = page.data
  const problem = h("div", {})
  showView("plans", [
    h("div", { class: "title-row" }, h("h1", {}, "Plans"), subscriptionTabs("/dashboard/subscriptions/plans")),
    h("p", { class: "summary-line" }, "A plan is a price per period. Share its checkout link: the buyer approves the payments once in their wallet, and each period is charged on its own. A deactivated plan takes no new subscribers; its subscriptions go on."),
    problem,
    plans.length === 0
      ? h("p", { class: "summary-line" }, "No plans yet.")
      : table("Plans, newest first", ["Plan", "Merchant", "Price", "Term", "State", "Created", ""], plans.map((p) => [
        h("span", { class: "stack" },
          h("a", { href: p.url, class: "strong", target: "_blank", rel: "noopener" }, p.name),
          h("span", { class: "copyable nowrap-wide" }, h("span", { class: "muted" }, "Checkout link"), copyButton(p.url, "checkout link")),
          link(withQuery("/dashboard/subscriptions", new URLSearchParams(), { plan: p.planId }), { class: "nowrap-wide" }, "Subscriptions")),
        merchants.get(p.merchantId)?.merchantName ?? p.merchantId,
        h("span", { class: "strong nowrap-wide" }, perPeriod(formatAmount(p.amount), p.periodSeconds)),
        h("span", { class: "stack" },
          termWords(p.periods, p.periodSeconds),
          p.trialSeconds === 0 ? null : h("span", { class: "muted" }, `${durationWords(p.trialSeconds)} free trial`)),
        statusBadge(p.active ? "active" : "inactive"),
        h("span", { class: "nowrap" }, time(p.createdAt)),
        switchButton({ api, name: p.name, active: p.active, path: `/v1/plans/${encodeURIComponent(p.planId)}`, problem, done: reload })
      ])),
    pager("/dashboard/subscriptions/plans", query, page.nextCursor, "More plans"),
    active.length === 0 ? section("New plan", h("p", {}, "Create a merchant first: a plan charges subscribers for one of your merchants.")) : section("New plan", create)
  ])
}
