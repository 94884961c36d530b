// @ts-check
/**
 * Merchants: the list (search by name or id, active or deleted), a form to create one, and each
 * merchant's page: its profile (name, email, icon) to edit, soft delete, and its crypto settlement
 * destinations (add, change, remove). Every rule is the API's: its message is shown as it is.
 *
 * @module
 */
import { h, icon, showView } from "./dom.js"
import { idempotencyKey } from "./api.js"
import { addressOf } from "./chain.js"
import { actionButton, actionForm, field, input, select } from "./forms.js"
import { announce, copyable, go, link, orNotFound, pager, section, statusBadge, table, time, withQuery } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/** @param {Context} context */
export async function showMerchants(context) {
  const { api, query } = context
  const search = query.get("search") ?? ""
  const status = query.get("status") === "deleted" ? "deleted" : "active"
  const cursor = query.get("cursor") ?? ""
  const page = await api.get("/v1/merchants", { search, status: status === "active" ? undefined : status, cursor, limit: "20" })
  if (!context.isCurrent()) return

  /** @param {Record<string, string>} changes */
  const changed = (changes) => withQuery("/dashboard/merchants", query, changes)
  const searchBox = input("merchant-search", { type: "search", value: search, placeholder: "Name or mer_…" })
  const statusChoice = select("merchant-status", [["active", "Active"], ["deleted", "Deleted"]], status)
  const filters = h("form", {
    class: "filters",
    role: "search",
    "aria-label": "Find merchants",
    onsubmit: (event) => {
      event.preventDefault()
      go(changed({ search: searchBox.value.trim(), status: statusChoice.value === "active" ? "" : statusChoice.value, cursor: "" }))
    }
  }, field("Search", searchBox), field("Show", statusChoice), h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button primary small" }, "Search")))

  const name = input("new-merchant-name", { autocomplete: "organization", required: true })
  const email = input("new-merchant-email", { type: "email", autocomplete: "email" })
  const iconUrl = input("new-merchant-icon", { type: "url", placeholder: "https://…" })
  const create = actionForm({
    label: "Create merchant",
    className: "form create-form",
    fields: [field("Name", name), field("Email (optional)", email), field("Icon URL (optional)", iconUrl, "An HTTPS image shown on the checkout.")],
    action: async () => {
      const created = await api.post("/v1/merchants", {
        merchantName: name.value.trim(),
        merchantEmail: email.value.trim() === "" ? null : email.value.trim(),
        iconUrl: iconUrl.value.trim() === "" ? null : iconUrl.value.trim()
      }, idempotencyKey())
      announce(`Merchant ${created.merchantName} created.`)
      go(`/dashboard/merchants/${created.merchantId}`)
    }
  })

  /** @type {ReadonlyArray<any>} */
  const merchants = page.data
  showView("merchants", [
    h("h1", {}, "Merchants"),
    filters,
    merchants.length === 0
      ? h("p", { class: "summary-line" }, search === "" ? `No ${status} merchants.` : "No merchant matches this search.")
      : table("Merchants, newest first", ["Merchant", "Email", "Status", "Created"], merchants.map((m) => [
        h("span", { class: "merchant" },
          icon(m.iconUrl, "merchant-icon small") ?? h("span", { class: "merchant-icon small avatar", "aria-hidden": "true" }, (m.merchantName.trim()[0] ?? "?").toUpperCase()),
          h("span", { class: "stack" }, link(`/dashboard/merchants/${m.merchantId}`, { class: "strong" }, m.merchantName), h("code", { class: "id" }, m.merchantId))),
        m.merchantEmail ?? "—",
        statusBadge(m.status),
        time(m.createdAt)
      ])),
    pager("/dashboard/merchants", query, page.nextCursor, "More merchants"),
    section("New merchant", create)
  ])
}

/**
 * @param {Context} context
 * @param {string} merchantId
 */
export async function showMerchant(context, merchantId) {
  const { api } = context
  /** @type {any} */
  const merchant = await orNotFound(context, () => api.get(`/v1/merchants/${encodeURIComponent(merchantId)}`), {
    name: "merchant-not-found",
    title: "Merchant not found",
    text: `There is no merchant ${merchantId} for this account.`,
    back: ["/dashboard/merchants", "Back to merchants"]
  })
  if (merchant === undefined || !context.isCurrent()) return
  const path = `/v1/merchants/${encodeURIComponent(merchantId)}`
  const reload = () => showMerchant({ ...context, followed: true }, merchantId)
  const deleted = merchant.status === "deleted"

  const name = input("merchant-name", { value: merchant.merchantName, required: true })
  const email = input("merchant-email", { type: "email", value: merchant.merchantEmail ?? "" })
  const iconUrl = input("merchant-icon", { type: "url", value: merchant.iconUrl ?? "", placeholder: "https://…" })
  const profile = actionForm({
    label: "Save changes",
    className: "form",
    fields: [field("Name", name), field("Email", email), field("Icon URL", iconUrl, "An HTTPS image; leave empty for none.")],
    action: async () => {
      /** @type {Record<string, string | null>} */
      const changes = {}
      if (name.value.trim() !== merchant.merchantName) changes["merchantName"] = name.value.trim()
      if (email.value.trim() !== (merchant.merchantEmail ?? "")) changes["merchantEmail"] = email.value.trim()
      if (iconUrl.value.trim() !== (merchant.iconUrl ?? "")) changes["iconUrl"] = iconUrl.value.trim() === "" ? null : iconUrl.value.trim()
      if (Object.keys(changes).length === 0) {
        announce("Nothing changed.")
        return
      }
      await api.patch(path, changes)
      announce("Merchant saved.")
      await reload()
    }
  })

  const deleteProblem = h("div", {})
  const remove = actionButton({
    label: "Delete merchant",
    className: "danger small",
    problem: deleteProblem,
    confirm: { title: `Delete ${merchant.merchantName}?`, text: "It can no longer create payments. Its past payments stay visible.", confirm: "Delete merchant", danger: true },
    action: async () => {
      await api.remove(path)
      announce(`${merchant.merchantName} deleted.`)
      go("/dashboard/merchants")
    }
  })

  showView("merchant", [
    h("p", { class: "crumbs" }, link("/dashboard/merchants", {}, "← Merchants")),
    h("div", { class: "title-row" }, h("h1", {}, merchant.merchantName), statusBadge(merchant.status)),
    h("p", { class: "muted" }, "Id ", copyable(merchant.merchantId, "merchant id"), " · created ", time(merchant.createdAt)),
    h("p", {}, link(`/dashboard/payments?merchant=${encodeURIComponent(merchant.merchantId)}`, {}, "See this merchant's payments")),
    h("div", { class: "columns even" },
      section("Profile", deleted ? h("p", { class: "muted" }, "A deleted merchant cannot be changed.") : profile),
      section("Crypto settlement", settlements(context, merchant, reload))),
    deleted ? null : section("Delete", h("p", { class: "muted" }, "Deleting is soft: the merchant stops taking payments; its records stay."), deleteProblem, remove)
  ], { focus: context.followed !== true })
}

/**
 * The merchant's crypto settlement destinations: each with change and remove, and a form to add one.
 *
 * @param {Context} context
 * @param {any} merchant
 * @param {() => Promise<void>} reload
 */
function settlements(context, merchant, reload) {
  const { api, config } = context
  const base = `/v1/merchants/${encodeURIComponent(merchant.merchantId)}/settlements/crypto`
  /** @param {string} assetId */
  const assetName = (assetId) => {
    const asset = config.assets.find((a) => a.assetId.toLowerCase() === assetId.toLowerCase())
    return asset === undefined ? assetId : `${asset.symbol} on ${asset.networkName}`
  }
  // An address alone is taken on the token's chain (CAIP-10 `chain:address`).
  /** @param {string} assetId @param {string} value */
  const account = (assetId, value) => (/^0x/i.test(value.trim()) ? `${assetId.split("/")[0]}:${value.trim()}` : value.trim())
  /** @type {ReadonlyArray<any>} */
  const crypto = merchant.settlements.crypto
  const rows = crypto.map((s, i) => {
    const destination = input(`settlement-${i}`, { value: addressOf(s.destination), "aria-label": `New destination for ${assetName(s.asset)}` })
    const problem = h("div", {})
    const removeButton = actionButton({
      label: "Remove",
      ariaLabel: `Remove the ${assetName(s.asset)} destination`,
      problem,
      confirm: { title: `Stop settling ${assetName(s.asset)}?`, text: "Payments in this token then stay at the collection address.", confirm: "Remove", danger: true },
      action: async () => {
        await api.remove(`${base}/${encodeURIComponent(s.id)}`)
        announce("Settlement destination removed.")
        await reload()
      }
    })
    // Added or changed lately: the service forwards nothing to it before then.
    const waiting = typeof s.usableFrom === "number" && s.usableFrom * 1000 > Date.now()
      ? h("p", { class: "alert info", role: "status" }, "Usable from ", time(s.usableFrom), " — payments until then stay at the collection address.")
      : null
    return h("li", { class: "settlement" },
      h("div", { class: "settlement-head" }, h("p", { class: "strong" }, assetName(s.asset)), removeButton),
      waiting,
      problem,
      actionForm({
        label: "Change",
        fields: [destination],
        action: async () => {
          await api.put(`${base}/${encodeURIComponent(s.id)}`, { destination: account(s.asset, destination.value) })
          announce("Settlement destination changed.")
          await reload()
        }
      }))
  })
  const configured = new Set(crypto.map((s) => s.asset.toLowerCase()))
  // Only tokens of the session's mode: a sandbox merchant settles test tokens, a live one real ones.
  const choices = config.assets.filter((a) => a.mode === context.session.mode && !configured.has(a.assetId.toLowerCase()))
  const asset = select("settlement-asset", choices.map((a) => /** @type {const} */ ([a.assetId, `${a.symbol} on ${a.networkName}`])), choices[0]?.assetId ?? "")
  const destination = input("settlement-destination", { placeholder: "0x…", spellcheck: "false" })
  const add = actionForm({
    label: "Add destination",
    className: "form",
    fields: [field("Token", asset), field("Send to address", destination, "Payments in this token are forwarded to this address after they succeed.")],
    action: async () => {
      await api.post(base, { settlements: [{ asset: asset.value, destination: account(asset.value, destination.value) }] })
      announce("Settlement destination added.")
      await reload()
    }
  })
  return h("div", {},
    crypto.length === 0 ? h("p", { class: "muted" }, "No destination: payments stay at the collection address.") : h("ul", { class: "settlements" }, rows),
    merchant.status === "deleted" || choices.length === 0 ? null : add)
}
