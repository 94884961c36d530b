// @ts-check
/**
 * Webhook endpoints: add one (URL, the events it receives, optionally one merchant), and for each
 * enable or disable it, choose its events, rotate its signing secret (the new one shown once),
 * send a test event, delete it, and open its delivery log (request, response, redeliver).
 *
 * @module
 */
import { h } from "./dom.js"
import { deliveryTable } from "./deliveries.js"
import { actionButton, actionForm, field, input } from "./forms.js"
import { alertBox, announce, link, section, shownOnce, statusBadge, time } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/**
 * Checkboxes of the event types; none checked means every type.
 *
 * @param {ReadonlyArray<string>} eventTypes
 * @param {string} prefix
 * @param {ReadonlyArray<string>} checked
 */
function eventChoices(eventTypes, prefix, checked) {
  const boxes = eventTypes.map((type) => h("input", { type: "checkbox", id: `${prefix}-${type}`, value: type, checked: checked.includes(type) }))
  const fieldset = h("fieldset", { class: "fieldset events" },
    h("legend", {}, "Events"),
    h("p", { class: "hint" }, "None checked: every event."),
    h("div", { class: "choices" }, boxes.map((box) => h("label", { class: "choice", for: box.id }, box, box.value))))
  return { fieldset, selected: () => boxes.filter((box) => box.checked).map((box) => box.value) }
}

/**
 * @param {Context} context
 * @param {() => Promise<void>} reload
 * @param {HTMLElement} news where a new secret is shown
 */
export async function webhooksSection(context, reload, news) {
  const { api, query } = context
  const eventTypes = context.config.eventTypes
  /** @type {ReadonlyArray<any>} */
  const endpoints = (await api.get("/v1/webhooks", { limit: "100" })).data
  const open = query.get("endpoint") ?? ""
  const log = endpoints.some((e) => e.id === open) ? await deliveryLog(context, endpoints, open, reload) : null

  const url = input("webhook-url", { type: "url", placeholder: "https://example.com/webhooks", spellcheck: "false" })
  const events = eventChoices(eventTypes, "new-webhook", [])
  const add = actionForm({
    label: "Add endpoint",
    className: "form",
    fields: [field("Endpoint URL", url, context.session.mode === "sandbox" ? "HTTPS, or plain HTTP in test mode. Not a private address." : "An HTTPS URL on the internet."), events.fieldset],
    action: async () => {
      const created = await api.post("/v1/webhooks", { url: url.value.trim(), events: events.selected() })
      await reload()
      news.replaceChildren(shownOnce(`Endpoint added. Its signing secret, shown only now, verifies the webhooks it receives:`, created.secret))
      announce("Endpoint added. Copy its signing secret now.")
    }
  })

  const rows = endpoints.map((endpoint) => {
    const problem = h("div", {})
    /**
     * @param {string} label
     * @param {string} className
     * @param {() => Promise<void>} action
     * @param {{ title: string, text: string, confirm: string, danger?: boolean }} [confirm]
     */
    const button = (label, className, action, confirm) =>
      actionButton({ label, className: `${className} small`, ariaLabel: `${label}: ${endpoint.url}`, problem, action, ...(confirm === undefined ? {} : { confirm }) })
    const path = `/v1/webhooks/${encodeURIComponent(endpoint.id)}`
    const active = endpoint.status === "active"
    const chosen = eventChoices(eventTypes, `events-${endpoint.id}`, endpoint.events.length === eventTypes.length ? [] : endpoint.events)
    const editEvents = h("details", { class: "edit-events" }, h("summary", {}, "Choose events"), actionForm({
      label: "Save events",
      fields: [chosen.fieldset],
      action: async () => {
        await api.patch(path, { events: chosen.selected() })
        announce("Events saved.")
        await reload()
      }
    }))
    return h("li", { class: "endpoint" },
      h("div", { class: "endpoint-head" },
        h("span", { class: "strong wrap" }, endpoint.url),
        statusBadge(endpoint.status)),
      h("p", { class: "muted" },
        endpoint.events.length === eventTypes.length ? "Every event" : endpoint.events.join(", "),
        " · created ", time(endpoint.createdAt), " · ", h("code", { class: "id" }, endpoint.id)),
      problem,
      h("div", { class: "button-row" },
        link(`/dashboard/developers?endpoint=${encodeURIComponent(endpoint.id)}#delivery-log`, { class: "button secondary small" }, "Delivery log"),
        button("Send test event", "secondary", async () => {
          const result = await api.post(`${path}/test`)
          const text = result.delivered
            ? `Test event delivered: HTTP ${result.statusCode} in ${result.durationMs} ms.`
            : `Test event not delivered: ${result.error ?? `HTTP ${result.statusCode}`}.`
          problem.replaceChildren(alertBox(text, result.delivered ? "info" : "error"))
          announce(text)
        }),
        button(active ? "Disable" : "Enable", "secondary", async () => {
          await api.patch(path, { status: active ? "disabled" : "active" })
          announce(active ? "Endpoint disabled." : "Endpoint enabled.")
          await reload()
        }),
        button("Rotate secret", "secondary", async () => {
          const rotated = await api.post(`${path}/rotate-secret`)
          news.replaceChildren(shownOnce(`New signing secret for ${endpoint.url}, shown only now:`, rotated.secret))
          announce("Secret rotated. Copy the new secret now.")
          news.scrollIntoView({ block: "nearest" })
        }, { title: "Rotate the signing secret?", text: "Webhooks are signed with a new secret from now on: update your receiver with it.", confirm: "Rotate" }),
        button("Delete", "danger", async () => {
          await api.remove(path)
          announce("Endpoint deleted.")
          await reload()
        }, { title: "Delete this endpoint?", text: `${endpoint.url} receives no more webhooks; its pending deliveries end failed.`, confirm: "Delete endpoint", danger: true })),
      editEvents)
  })

  return [
    section("Webhook endpoints",
      endpoints.length === 0 ? h("p", { class: "muted" }, "No endpoint yet: add one to be told when payments or settlement destinations change.") : h("ul", { class: "endpoints" }, rows),
      h("details", { class: "add", open: endpoints.length === 0 }, h("summary", {}, "Add an endpoint"), add)),
    log
  ]
}

/**
 * One endpoint's latest deliveries.
 *
 * @param {Context} context
 * @param {ReadonlyArray<any>} endpoints
 * @param {string} endpointId
 * @param {() => Promise<void>} reload
 */
async function deliveryLog(context, endpoints, endpointId, reload) {
  const { api } = context
  const deliveries = await api.get(`/v1/webhooks/${encodeURIComponent(endpointId)}/deliveries`, { limit: "50" })
  const endpoint = endpoints.find((e) => e.id === endpointId)
  const body = deliveryTable({
    api,
    deliveries: deliveries.data,
    endpointUrls: new Map([[endpointId, endpoint?.url ?? endpointId]]),
    caption: `Deliveries to ${endpoint?.url ?? endpointId}, newest first`,
    onRedelivered: () => void reload()
  })
  const panel = section("Delivery log", h("p", { class: "muted" }, `To ${endpoint?.url ?? endpointId}, newest first. `, link("/dashboard/developers", {}, "Close")), body)
  panel.id = "delivery-log"
  return panel
}
