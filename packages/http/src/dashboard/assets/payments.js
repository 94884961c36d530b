// @ts-check
/**
 * The payments list: the API's filters (status, merchant, reference, creation date range), a
 * search box that opens a payment by id or filters by order reference, cursor paging, and the
 * page's totals. The filters live in the address (`?status=…&merchant=…`), so Back and reloads
 * keep them. While a payment on the page is under way the list is read again, and a status that
 * changed is shown and announced.
 *
 * @module
 */
import { h, replace, showView } from "./dom.js"
import { formatAmount } from "./format.js"
import { exportPanel } from "./exports.js"
import { field, input, select } from "./forms.js"
import { alertBox, announce, go, link, pager, statusBadge, statusLabel, table, time, withQuery } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */
/** @typedef {import("./format.js").Amount} Amount */

const statuses = ["requires_action", "processing", "authorized", "succeeded", "failed", "expired", "cancelled", "voided", "reclaimed"]
const pageSize = "20"

/**
 * The partner's merchants (first 100, active and deleted) by id: names for lists.
 *
 * @param {import("./api.js").Api} api
 * @returns {Promise<Map<string, { merchantId: string, merchantName: string, status: string }>>}
 */
export async function merchantDirectory(api) {
  const [active, deleted] = await Promise.all([
    api.get("/v1/merchants", { limit: "100" }),
    api.get("/v1/merchants", { limit: "100", status: "deleted" })
  ])
  return new Map([...active.data, ...deleted.data].map((m) => [m.merchantId, m]))
}

/**
 * A date field's value (`YYYY-MM-DD`, UTC) as Unix seconds at the start of that day, plus `days`.
 *
 * @param {string | null} value
 * @param {number} days
 */
const dayStart = (value, days) => {
  if (value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined
  const ms = Date.parse(`${value}T00:00:00Z`)
  return Number.isFinite(ms) ? String(ms / 1000 + days * 86_400) : undefined
}

/**
 * Succeeded amounts added up per currency (exact: minor units as BigInt); of a held payment, what
 * was captured (the rest went back to the buyer).
 *
 * @param {ReadonlyArray<{ status: string, amount: Amount, hold?: { capturedAmount: Amount } }>} payments
 */
function succeededTotals(payments) {
  /** @type {Map<string, Amount>} */
  const totals = new Map()
  for (const payment of payments) {
    if (payment.status !== "succeeded") continue
    const sum = totals.get(payment.amount.unit)
    const value = payment.hold?.capturedAmount.value ?? payment.amount.value
    totals.set(payment.amount.unit, { ...payment.amount, value: String(BigInt(sum?.value ?? "0") + BigInt(value)) })
  }
  return [...totals.values()].map(formatAmount)
}

/** @param {Context} context */
export async function showPayments(context) {
  const { api, query } = context
  const status = query.get("status") ?? ""
  const merchantId = query.get("merchant") ?? ""
  const reference = query.get("reference") ?? ""
  const from = query.get("from") ?? ""
  const to = query.get("to") ?? ""
  const cursor = query.get("cursor") ?? ""
  const listQuery = {
    status: status === "" ? undefined : [status],
    merchantId,
    referenceId: reference,
    // From a payment link's row on the Links page: that link's payments.
    linkId: query.get("link") ?? "",
    startTs: dayStart(from, 0),
    // The "to" day is included: before the start of the next day.
    endTs: dayStart(to, 1),
    limit: pageSize,
    cursor
  }
  const [merchants, page] = await Promise.all([merchantDirectory(api), api.get("/v1/payments", listQuery)])
  if (!context.isCurrent()) return

  /** @param {Record<string, string>} changes */
  const changed = (changes) => withQuery("/dashboard/payments", query, changes)

  const searchBox = input("search", { type: "search", placeholder: "pay_… or order reference", value: reference })
  const statusChoice = select("status", [["", "Any status"], ...statuses.map((s) => /** @type {const} */ ([s, statusLabel(s)]))], status)
  const merchantChoice = select("merchant", [["", "All merchants"], ...[...merchants.values()].map((m) => /** @type {const} */ ([m.merchantId, m.merchantName]))], merchantId)
  const fromDate = input("from", { type: "date", value: from })
  const toDate = input("to", { type: "date", value: to })
  const filters = h(
    "form",
    {
      id: "payment-filters",
      class: "filters collapsed",
      role: "search",
      "aria-label": "Filter payments",
      onsubmit: (event) => {
        event.preventDefault()
        const term = searchBox.value.trim()
        // A payment id opens that payment; anything else is an order reference.
        if (/^pay_[A-Za-z0-9]+$/.test(term)) {
          go(`/dashboard/payments/${term}`)
          return
        }
        go(changed({ reference: term, status: statusChoice.value, merchant: merchantChoice.value, from: fromDate.value, to: toDate.value, cursor: "" }))
      }
    },
    field("Search", searchBox, "A payment id, or an order reference exactly."),
    field("Status", statusChoice),
    field("Merchant", merchantChoice),
    field("Created from", fromDate),
    field("Created to", toDate),
    h("div", { class: "filter-actions" },
      h("button", { type: "submit", class: "button primary small" }, "Apply"),
      link("/dashboard/payments", { class: "button secondary small" }, "Clear"))
  )

  const active = [status, merchantId, reference, from, to].filter((value) => value !== "").length
  const filtered = active > 0
  // On a phone the form folds behind a "Filters" button (CSS shows the button below 640 px only).
  const toggle = h("button", {
    type: "button",
    class: "button secondary small filters-toggle",
    "aria-expanded": "false",
    "aria-controls": "payment-filters",
    onclick: () => {
      const open = toggle.getAttribute("aria-expanded") !== "true"
      toggle.setAttribute("aria-expanded", String(open))
      filters.classList.toggle("collapsed", !open)
      if (open) searchBox.focus()
    }
  }, active === 0 ? "Filters" : `Filters (${active} on)`)
  /** @param {{ data: ReadonlyArray<any>, nextCursor: string | null }} shown */
  const results = (shown) => {
    const payments = shown.data
    const totals = succeededTotals(payments)
    const rows = payments.map((p) => [
      time(p.createdAt),
      h("span", { class: "stack" }, link(`/dashboard/payments/${p.paymentId}`, { class: "strong" }, p.referenceId), h("code", { class: "id" }, p.paymentId)),
      merchants.get(p.merchantId)?.merchantName ?? p.merchantId,
      h("span", { class: "amount-cell" }, formatAmount(p.amount)),
      h("span", {}, statusBadge(p.status), p.refund === null ? null : h("span", { class: "muted" }, ` · refund ${p.refund.status}`),
        partlyCaptured(p) ? h("span", { class: "muted" }, ` · ${formatAmount(p.hold.capturedAmount)} captured`) : null)
    ])
    return [
      h("p", { class: "summary-line" },
        payments.length === 0
          ? filtered ? "No payment matches these filters." : "No payments yet. Payments your merchants create appear here."
          : `${payments.length} payment${payments.length === 1 ? "" : "s"} on this page${cursor === "" ? "" : " (older)"}`,
        totals.length === 0 ? null : ` · Succeeded: ${totals.join(" + ")}`),
      payments.length === 0 ? null : table("Payments, newest first", ["Created", "Order reference", "Merchant", "Amount", "Status"], rows),
      pager("/dashboard/payments", query, shown.nextCursor, "Older payments")
    ]
  }
  const list = h("div", { id: "payment-results" }, results(page))

  showView("payments", [
    h("div", { class: "title-row" }, h("h1", {}, "Payments"), toggle),
    filters,
    list,
    exportPanel({ merchantId, from, to }),
    merchants.size === 0 ? alertBox("You have no merchants yet: create one under Merchants, then create payments for it with the API.", "info") : null
  ])
  void follow(context, listQuery, page, (next) => replace(list, results(next)))
}

/**
 * A held payment that succeeded with less than its amount captured (the rest went back to the buyer).
 *
 * @param {any} p
 */
const partlyCaptured = (p) => p.status === "succeeded" && p.hold !== undefined && p.hold.capturedAmount.value !== p.amount.value

/** How often a list with payments under way is read again (ms). */
const followMs = 3000

/**
 * @param {{ status: string, isFinal: boolean, refund: { status: string } | null }} p
 */
const underWay = (p) => !p.isFinal || p.refund?.status === "pending"

/**
 * @param {ReadonlyArray<{ paymentId: string, status: string, refund: { status: string } | null }>} payments
 */
const listKey = (payments) => payments.map((p) => `${p.paymentId}:${p.status}:${p.refund?.status ?? ""}`).join(",")

/**
 * Reads the list again while the view is on screen and some payment on it is under way, and shows
 * it again (the filters as they are) when a status changed, saying which changed.
 *
 * @param {Context} context
 * @param {Record<string, string | ReadonlyArray<string> | undefined>} listQuery
 * @param {{ data: ReadonlyArray<any> }} page
 * @param {(next: any) => void} show
 */
async function follow(context, listQuery, page, show) {
  let shown = page
  while (context.isCurrent() && shown.data.some(underWay)) {
    await new Promise((resolve) => setTimeout(resolve, followMs))
    if (!context.isCurrent()) return
    /** @type {any} */
    let next
    try {
      next = await context.api.get("/v1/payments", listQuery)
    } catch {
      continue
    }
    if (!context.isCurrent() || listKey(next.data) === listKey(shown.data)) continue
    const before = new Map(shown.data.map((p) => [p.paymentId, p.status]))
    const news = next.data.filter((/** @type {any} */ p) => before.has(p.paymentId) && before.get(p.paymentId) !== p.status)
    show(next)
    if (news.length > 0) announce(news.map((/** @type {any} */ p) => `${p.referenceId}: ${statusLabel(p.status)}`).join(". "))
    shown = next
  }
}
