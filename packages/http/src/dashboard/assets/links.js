// @ts-check
/**
 * Payment links: a form to create one (fixed or open amount, reusable or a single-use invoice,
 * limit, expiry), and the list with what each took, its page to share and its switch on or off.
 * Every rule is the API's: its message is shown as it is.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { idempotencyKey } from "./api.js"
import { formatAmount } from "./format.js"
import { actionForm, field, input, select, switchButton } from "./forms.js"
import { announce, copyable, link, pager, section, statusBadge, table, time, withQuery } from "./ui.js"
import { merchantDirectory } from "./payments.js"
import { currencyDecimals, unitsOrText } from "./units.js"

/** @typedef {import("./context.js").Context} Context */

/** @param {any} link */
function amountOf(link) {
  if (link.amount !== null) return formatAmount(link.amount)
  const bounds = [link.minAmount === null ? null : `from ${formatAmount(link.minAmount)}`, link.maxAmount === null ? null : `up to ${formatAmount(link.maxAmount)}`]
  return ["Buyer enters", ...bounds.filter((bound) => bound !== null)].join(" ")
}

/** @param {Context} context */
export async function showLinks(context) {
  const { api, query } = context
  const cursor = query.get("cursor") ?? ""
  const [page, merchants] = await Promise.all([api.get("/v1/links", { cursor, limit: "20" }), merchantDirectory(api)])
  if (!context.isCurrent()) return
  const reload = () => showLinks({ ...context, followed: true })
  const active = [...merchants.values()].filter((m) => m.status === "active")

  const merchant = select("link-merchant", active.map((m) => [m.merchantId, m.merchantName]), active[0]?.merchantId ?? "")
  const title = input("link-title", { required: true, placeholder: "Donation, Invoice 42, T-shirt…" })
  const currency = input("link-currency", { value: "USD", maxlength: "3", autocomplete: "off", class: "short" })
  const kind = select("link-kind", [["fixed", "Fixed"], ["open", "Buyer chooses"]], "fixed")
  const amount = input("link-amount", { inputmode: "decimal", placeholder: "25.00" })
  const minimum = input("link-min", { inputmode: "decimal", placeholder: "optional" })
  const maximum = input("link-max", { inputmode: "decimal", placeholder: "optional" })
  const usage = select("link-usage", [["reusable", "Reusable"], ["single", "Single use (an invoice)"]], "reusable")
  const limit = input("link-limit", { inputmode: "numeric", placeholder: "no limit" })
  const reference = input("link-reference", { placeholder: "INV-0042" })
  const due = input("link-due", { type: "date" })
  const email = input("link-email", { type: "email", autocomplete: "off" })
  const expires = input("link-expires", { type: "date" })

  const fixedFields = field("Amount", amount)
  const openFields = h("div", { class: "form-row" }, field("Minimum", minimum), field("Maximum", maximum))
  const reusableFields = field("Most payments", limit, "Optional: the link stops after this many.")
  const invoiceFields = h("fieldset", { class: "invoice-fields" }, h("legend", {}, "Invoice"),
    field("Reference", reference, "Becomes the payment's referenceId."), field("Due date (optional)", due), field("Buyer email (optional)", email))
  const shown = () => {
    fixedFields.hidden = kind.value !== "fixed"
    openFields.hidden = kind.value !== "open"
    reusableFields.hidden = usage.value !== "reusable"
    invoiceFields.hidden = usage.value !== "single"
  }
  kind.addEventListener("change", shown)
  usage.addEventListener("change", shown)
  shown()

  const create = actionForm({
    label: "Create link",
    className: "form link-form",
    fields: [
      field("Merchant", merchant),
      field("Title", title, "What the buyer pays for, shown on the link's page."),
      h("div", { class: "form-row" }, field("Currency", currency), field("Price", kind)),
      fixedFields,
      openFields,
      field("Use", usage),
      reusableFields,
      invoiceFields,
      field("Expires (optional)", expires, "The link takes no payment from this day on (UTC).")
    ],
    action: async () => {
      const code = currency.value.trim().toUpperCase()
      const unit = `iso4217/${code}`
      const decimals = currencyDecimals(code)
      /** @type {Record<string, unknown>} */
      const body = { merchantId: merchant.value, title: title.value, usage: usage.value }
      if (kind.value === "fixed") body["amount"] = { unit, value: unitsOrText(amount.value, decimals) }
      else {
        body["openAmount"] = {
          unit,
          ...(minimum.value.trim() === "" ? {} : { minValue: unitsOrText(minimum.value, decimals) }),
          ...(maximum.value.trim() === "" ? {} : { maxValue: unitsOrText(maximum.value, decimals) })
        }
      }
      if (usage.value === "reusable" && limit.value.trim() !== "") body["maxPayments"] = Number(limit.value.trim())
      if (usage.value === "single" && reference.value.trim() !== "") {
        body["invoice"] = {
          reference: reference.value.trim(),
          ...(due.value === "" ? {} : { dueDate: due.value }),
          ...(email.value.trim() === "" ? {} : { buyerEmail: email.value.trim() })
        }
      }
      if (expires.value !== "") body["expiresAt"] = Date.parse(`${expires.value}T00:00:00Z`) / 1000
      const made = await api.post("/v1/links", body, idempotencyKey())
      announce(`Link ${made.title} created.`)
      await reload()
    }
  })

  /** @type {ReadonlyArray<any>} */
  const links = page.data
  const problem = h("div", {})
  showView("links", [
    h("h1", {}, "Payment links"),
    h("p", { class: "summary-line" }, "Share a link, or its QR code on the link's page: buyers pay on the hosted checkout, no code needed."),
    problem,
    links.length === 0
      ? h("p", { class: "summary-line" }, "No payment links yet.")
      : table("Payment links, newest first", ["Link", "Merchant", "Amount", "Paid", "State", ""], links.map((l) => [
        h("span", { class: "stack" },
          h("a", { href: l.url, class: "strong", target: "_blank", rel: "noopener" }, l.title),
          copyable(l.url, "link address"),
          link(withQuery("/dashboard/payments", new URLSearchParams(), { link: l.linkId }), {}, "Payments")),
        merchants.get(l.merchantId)?.merchantName ?? l.merchantId,
        amountOf(l),
        h("span", { class: "stack" },
          h("span", { class: "strong" }, formatAmount(l.totals.collected)),
          h("span", { class: "muted" }, `${l.totals.succeeded} paid of ${l.totals.payments} opened${l.maxPayments === null ? "" : `, limit ${l.maxPayments}`}`)),
        h("span", { class: "stack" }, statusBadge(l.state), l.expiresAt === null ? null : h("span", { class: "muted" }, "Until ", time(l.expiresAt))),
        // A paid invoice takes nothing more either way.
        l.state === "paid" ? null : switchButton({ api, name: l.title, active: l.active, path: `/v1/links/${encodeURIComponent(l.linkId)}`, problem, done: reload })
      ])),
    pager("/dashboard/links", query, page.nextCursor, "More links"),
    active.length === 0 ? section("New link", h("p", {}, "Create a merchant first: a link takes payments for one of your merchants.")) : section("New link", create)
  ])
}
