// @ts-check
/**
 * The dashboard's home: payments per day (a chart of the chosen range), the succeeded volume per
 * currency and per token, and the funds at the collection and settlement addresses. Every figure
 * comes from `GET /v1/balance`, which adds up all of the partner's payments in the session's mode
 * (not a listed page). Funds are the service's records, not balances read from the chain: the page
 * says so.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatAmount, shortAddress } from "./format.js"
import { addressOf, tokenAmount } from "./chain.js"
import { volumeChart, everyDay } from "./chart.js"
import { link, section, table, withQuery } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/** The chart's ranges, in days. */
const ranges = /** @type {const} */ (["7", "30", "90"])

/**
 * The network's collection address (where payments are paid), if the network is configured.
 *
 * @param {import("./context.js").DashboardConfig} config
 * @param {string} assetId CAIP-19
 */
const collectionOf = (config, assetId) => {
  const chainId = assetId.split("/")[0] ?? ""
  return config.networks.find((n) => n.chainId === chainId)?.collectionAddress ?? null
}

/** @param {Context} context */
export async function showHome(context) {
  const { api, config, query } = context
  const chosen = query.get("days") ?? "30"
  const days = ranges.find((r) => r === chosen) ?? "30"
  /** @type {any} */
  const balance = await api.get("/v1/balance", { days })
  if (!context.isCurrent()) return

  const rangeLinks = h("nav", { class: "segmented", "aria-label": "Chart range" },
    ranges.map((r) => link(withQuery("/dashboard", query, { days: r === "30" ? "" : r }), { class: "segment", "aria-current": r === days ? "true" : false }, `${r} days`)))

  const volume = [
    balance.currencies.length === 0 ? h("p", { class: "muted" }, "No payment has succeeded yet.") : table(
      "Succeeded payments per currency",
      ["Currency", "Payments", "Total"],
      balance.currencies.map((/** @type {any} */ c) => [c.amount.display.assetSymbol, String(c.count), h("span", { class: "amount-cell" }, formatAmount(c.amount))])
    ),
    balance.assets.length === 0 ? null : h("h3", {}, "Paid in tokens"),
    balance.assets.length === 0 ? null : table(
      "Succeeded payments per token",
      ["Token", "Payments", "Total"],
      balance.assets.map((/** @type {any} */ a) => {
        const asset = config.assets.find((x) => x.assetId.toLowerCase() === a.asset.toLowerCase())
        const name = asset === undefined ? a.asset : `${asset.symbol} on ${asset.networkName}`
        return [name, String(a.count), h("span", { class: "amount-cell" }, tokenAmount(config, a.asset, a.value, false))]
      })
    )
  ]

  const held = balance.held.filter((/** @type {any} */ f) => f.value !== "0")
  const funds = [
    h("h3", {}, "At the collection address"),
    held.length === 0
      ? h("p", { class: "muted" }, "Nothing: every succeeded payment has been settled or refunded.")
      : h("ul", { class: "funds" }, held.map((/** @type {any} */ f) => {
        const address = collectionOf(config, f.asset)
        return h("li", {}, h("span", { class: "amount-cell" }, tokenAmount(config, f.asset, f.value)),
          address === null ? null : h("span", { class: "muted" }, " at ", h("code", { class: "id", title: address }, shortAddress(address))))
      })),
    h("h3", {}, "Settled to merchants' destinations"),
    balance.settled.length === 0
      ? h("p", { class: "muted" }, "Nothing settled yet. A merchant with a settlement destination for a token gets its payments forwarded there.")
      : h("ul", { class: "funds" }, balance.settled.map((/** @type {any} */ s) =>
        h("li", {},
          h("span", { class: "amount-cell" }, tokenAmount(config, s.asset, s.completed)),
          h("span", { class: "muted" }, " to ", h("code", { class: "id", title: addressOf(s.destination) }, shortAddress(addressOf(s.destination)))),
          s.pending === "0" ? null : h("span", { class: "muted" }, ` · ${tokenAmount(config, s.asset, s.pending, false)} on its way`)))),
    h("p", { class: "hint" }, "What the service recorded: succeeded payments not yet settled or refunded, and settlements sent. These are not balances read from the chain.")
  ]

  showView("home", [
    h("div", { class: "title-row" }, h("h1", {}, "Home"), context.session.mode === "sandbox" ? h("span", { class: "muted" }, "Test payments only") : null),
    section("Payments per day", h("div", { class: "panel-head" }, rangeLinks), volumeChart(everyDay(balance.days, balance.since, balance.until))),
    h("div", { class: "columns even" },
      section("Succeeded volume, all time", volume),
      section("Funds", funds)),
    link("/dashboard/payments", { class: "button secondary small" }, "See every payment")
  ])
}
