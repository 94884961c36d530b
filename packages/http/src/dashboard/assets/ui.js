// @ts-check
/**
 * The dashboard's building blocks: in-page links, tabs and paging, announcements for screen
 * readers, messages, status badges, dates, copy buttons, sections, details and tables.
 *
 * @module
 */
import { byId, h, showView } from "./dom.js"
import { GatewayError } from "./gateway.js"

/** @typedef {import("./dom.js").Child} Child */

/** @type {(path: string) => void} */
let navigateTo = () => {}

/**
 * Where in-page links go (set once by the dashboard's router).
 *
 * @param {(path: string) => void} navigate
 */
export function setNavigator(navigate) {
  navigateTo = navigate
}

/**
 * A link to another dashboard view, followed without reloading the page.
 *
 * @param {string} path
 * @param {Record<string, import("./dom.js").AttributeValue>} attributes
 * @param {...(Child | ReadonlyArray<Child>)} children
 */
export function link(path, attributes, ...children) {
  return h("a", {
    ...attributes,
    href: path,
    onclick: (event) => {
      const mouse = /** @type {MouseEvent} */ (event)
      if (mouse.button !== 0 || mouse.metaKey || mouse.ctrlKey || mouse.shiftKey || mouse.altKey) return
      event.preventDefault()
      navigateTo(path)
    }
  }, ...children)
}

/**
 * Links between the views of one section, the one shown marked current.
 *
 * @param {string} label what the views are, for screen readers
 * @param {ReadonlyArray<readonly [string, string]>} views path and name
 * @param {string} current the path shown
 */
export function tabs(label, views, current) {
  return h("nav", { class: "segmented", "aria-label": label },
    views.map(([path, name]) => link(path, { class: "segment", "aria-current": path === current ? "page" : false }, name)))
}

/**
 * The address `path` with the query `query` changed (empty values removed).
 *
 * @param {string} path
 * @param {URLSearchParams} query
 * @param {Record<string, string>} changes
 */
export function withQuery(path, query, changes) {
  const next = new URLSearchParams(query)
  for (const [name, value] of Object.entries(changes)) {
    if (value === "") next.delete(name)
    else next.set(name, value)
  }
  const text = next.toString()
  return `${path}${text === "" ? "" : `?${text}`}`
}

/**
 * A list's paging: back to the first page once past it, and on to the next while there is one
 * (`more` names it: "More links"); the rest of the query stays.
 *
 * @param {string} path
 * @param {URLSearchParams} query
 * @param {string | null} nextCursor
 * @param {string} more
 */
export function pager(path, query, nextCursor, more) {
  return h("nav", { class: "pager", "aria-label": "Pages" },
    (query.get("cursor") ?? "") === "" ? null : link(withQuery(path, query, { cursor: "" }), { class: "button secondary small" }, "First page"),
    nextCursor === null ? null : link(withQuery(path, query, { cursor: nextCursor }), { class: "button secondary small", rel: "next" }, more))
}

/** @param {string} path */
export function go(path) {
  navigateTo(path)
}

/**
 * Says `message` to screen readers (a polite live region), e.g. "Payment succeeded".
 *
 * @param {string} message
 */
export function announce(message) {
  const region = byId("announcer", HTMLElement)
  region.textContent = ""
  // A change of content is what a live region announces: set it on the next frame.
  requestAnimationFrame(() => (region.textContent = message))
}

/**
 * A message in the view: a problem (`role="alert"`, announced at once) or news.
 *
 * @param {string} message
 * @param {"error" | "info"} [tone]
 */
export function alertBox(message, tone = "error") {
  return h("div", { class: `alert ${tone}`, role: tone === "error" ? "alert" : "status" }, message)
}

/**
 * The line a person reads for a failed call: the service's message (one clear sentence).
 *
 * @param {unknown} error
 */
export function messageOf(error) {
  if (error instanceof GatewayError) return error.message
  return "Something went wrong. Reload the page and try again."
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

/**
 * A Unix time (seconds) as a date and time, in a `<time>` element.
 *
 * @param {number | null | undefined} seconds
 */
export function time(seconds) {
  if (typeof seconds !== "number") return "—"
  const date = new Date(seconds * 1000)
  return h("time", { datetime: date.toISOString() }, dateTime.format(date))
}

const statusLabels = /** @type {Record<string, string>} */ ({
  requires_action: "Waiting for buyer",
  processing: "Processing",
  succeeded: "Succeeded",
  failed: "Failed",
  expired: "Expired",
  cancelled: "Cancelled",
  // Held payments: the funds wait in the escrow for the merchant's capture.
  authorized: "Authorized",
  voided: "Voided",
  reclaimed: "Reclaimed",
  pending: "Pending",
  submitted: "Submitted",
  completed: "Completed",
  active: "Active",
  disabled: "Disabled",
  deleted: "Deleted",
  revoked: "Revoked",
  open: "Open",
  inactive: "Inactive",
  paid: "Paid",
  limit_reached: "Limit reached",
  subscribing: "Starting",
  past_due: "Past due",
  paused: "Paused",
  skipped: "Skipped",
  ended: "Ended"
})

/** @param {string} status */
export function statusLabel(status) {
  return statusLabels[status] ?? status
}

/**
 * A coloured status label (the colour only repeats the word).
 *
 * @param {string} status
 */
export function statusBadge(status) {
  return h("span", { class: `status status-${status}` }, statusLabel(status))
}

/**
 * A button that copies `text` and says so.
 *
 * @param {string} text
 * @param {string} what e.g. "payment id"
 */
export function copyButton(text, what) {
  const button = h("button", {
    type: "button",
    class: "button secondary small copy-id",
    "aria-label": `Copy ${what}`,
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(text)
        button.textContent = "Copied"
        announce(`Copied the ${what}.`)
      } catch {
        button.textContent = "Select and copy"
      }
      setTimeout(() => (button.textContent = "Copy"), 2000)
    }
  }, "Copy")
  return button
}

/**
 * A value with a copy button; `clipped`: on one line, cut short (a long link whose end no one reads).
 *
 * @param {string} text
 * @param {string} what
 * @param {boolean} [clipped]
 */
export function copyable(text, what, clipped = false) {
  return h("span", { class: clipped ? "copyable clipped" : "copyable" }, h("code", { class: "id" }, text), copyButton(text, what))
}

/**
 * A secret to copy now, in a notice that says it is not shown again.
 *
 * @param {string} text
 * @param {string} secret
 * @param {string} [what] what the copy button names
 */
export function shownOnce(text, secret, what = "secret") {
  return h("div", { class: "alert info secret", role: "status" }, h("p", { class: "strong" }, text), copyable(secret, what))
}

/**
 * `load()`'s response; when the service responds 404, shows the not-found view `view` (with a link
 * back) and answers `undefined`.
 *
 * @template T
 * @param {{ isCurrent: () => boolean }} context
 * @param {() => Promise<T>} load
 * @param {{ name: string, title: string, text: string, back: readonly [string, string] }} view
 * @returns {Promise<T | undefined>}
 */
export async function orNotFound(context, load, view) {
  try {
    return await load()
  } catch (error) {
    if (!(error instanceof GatewayError && error.status === 404)) throw error
    if (context.isCurrent()) showView(view.name, [h("h1", {}, view.title), h("p", {}, view.text), link(view.back[0], {}, view.back[1])])
    return undefined
  }
}

/**
 * A section of a view with a heading.
 *
 * @param {string} title
 * @param {...(Child | ReadonlyArray<Child>)} children
 */
export function section(title, ...children) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), ...children)
}

/**
 * Terms and their values.
 *
 * @param {ReadonlyArray<readonly [string, Child | ReadonlyArray<Child>] | null>} rows
 */
export function details(rows) {
  return h("dl", { class: "details" }, rows.map((row) => row === null ? null : h("div", {}, h("dt", {}, row[0]), h("dd", {}, row[1]))))
}

/**
 * A table whose rows become cards on narrow screens (each cell labelled by its column).
 *
 * @param {string} caption
 * @param {ReadonlyArray<string>} columns
 * @param {ReadonlyArray<ReadonlyArray<Child | ReadonlyArray<Child>>>} rows
 */
export function table(caption, columns, rows) {
  return h(
    "table",
    { class: "list" },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell, i) => h("td", { "data-label": columns[i] ?? "" }, cell)))))
  )
}
