// @ts-check
/**
 * "Export for the books" on the payments page: payments, settlements or refunds of a period, or the
 * merchants' balances over it (and of the merchant the list is filtered to) as a CSV or JSON-lines
 * file, downloaded straight from the partner API (`GET /v1/exports/…`, docs/exports.md) with the
 * session's cookie.
 *
 * @module
 */
import { h } from "./dom.js"
import { field, input, select } from "./forms.js"

/** `YYYY-MM-DD` of a date, in UTC (the export's periods are UTC days). */
const day = (/** @type {Date} */ date) => date.toISOString().slice(0, 10)

/**
 * The panel; `from` and `to` start from the list's filters (the "to" day included), else this month.
 *
 * @param {{ merchantId: string, from: string, to: string }} filters
 */
export function exportPanel(filters) {
  const today = new Date()
  const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))
  const dataset = select("export-dataset", [
    ["payments", "Payments"],
    ["settlements", "Settlements"],
    ["refunds", "Refunds"],
    ["balances", "Balances"]
  ], "payments")
  const format = select("export-format", [["csv", "CSV"], ["jsonl", "JSON lines"]], "csv")
  const from = input("export-from", { type: "date", value: filters.from === "" ? day(monthStart) : filters.from, required: true })
  const to = input("export-to", { type: "date", value: filters.to === "" ? day(today) : filters.to, required: true })
  // The service names the file (Content-Disposition): records, mode and period.
  const download = h("a", { class: "button secondary small", id: "export-download", download: true }, "Download")
  const note = h("p", { class: "muted" })
  const update = () => {
    const ok = from.value !== "" && to.value !== "" && from.value <= to.value
    // The API's "to" is excluded: the day after the last day chosen.
    const end = ok ? day(new Date(Date.parse(`${to.value}T00:00:00Z`) + 86_400_000)) : ""
    const query = new URLSearchParams({ format: format.value, from: from.value, to: end })
    if (filters.merchantId !== "") query.set("merchantId", filters.merchantId)
    download.setAttribute("href", ok ? `/v1/exports/${dataset.value}?${query}` : "#")
    download.setAttribute("aria-disabled", String(!ok))
    const merchant = filters.merchantId === "" ? "" : ", of the merchant the list shows"
    note.textContent = !ok
      ? "Choose a first day on or before the last day."
      : dataset.value === "balances"
      ? `What each merchant was owed per token at the start of ${from.value} and at the end of ${to.value} (UTC)${merchant}, ` +
        "with what was received, reversed, settled and refunded in between, from the ledger."
      : `Every ${dataset.value.slice(0, -1)} created from ${from.value} to ${to.value} (UTC, both days included)${merchant}: ` +
        "amounts, tokens, rates, networks, transaction hashes and gas."
  }
  for (const control of [dataset, format, from, to]) control.addEventListener("change", update)
  update()
  return h(
    "details",
    { class: "export-panel" },
    h("summary", {}, "Export for the books"),
    h("div", { class: "filters" }, field("Records", dataset), field("Format", format), field("First day", from), field("Last day", to)),
    note,
    download
  )
}
