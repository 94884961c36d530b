// @ts-check
/**
 * Webhook deliveries, shared by the payment page and the developers' delivery log: each delivery
 * of an event to an endpoint with its status, attempts and the receiver's last response; the latest
 * attempt's request (its headers, and the signed event body, `GET /v1/events/{id}`, read when
 * opened) and response (status, headers, the start of its body); and "Redeliver", which queues the
 * event again for that endpoint.
 *
 * @module
 */
import { h } from "./dom.js"
import { actionButton } from "./forms.js"
import { announce, messageOf, statusBadge, table, time } from "./ui.js"

/** @typedef {{ status: number, headers: Record<string, string>, body: string, truncated: boolean }} DeliveryResponse */
/** @typedef {{ id: string, eventId: string, eventType: string, endpointId: string, status: string, attempts: number, nextAttemptAt: number | null, lastStatusCode: number | null, lastDurationMs: number | null, lastError: string | null, request: { headers: Record<string, string> } | null, response: DeliveryResponse | null, redelivery: boolean, createdAt: number }} Delivery */

/**
 * The receiver's last response in words.
 *
 * @param {Delivery} delivery
 */
export function responseText(delivery) {
  if (delivery.lastStatusCode !== null) {
    const took = delivery.lastDurationMs === null ? "" : ` in ${delivery.lastDurationMs} ms`
    return `HTTP ${delivery.lastStatusCode}${took}${delivery.lastError === null ? "" : ` (${delivery.lastError})`}`
  }
  if (delivery.lastError !== null) return delivery.lastError
  return delivery.attempts === 0 ? "Not sent yet" : "No answer"
}

/** @param {Record<string, string>} headers */
const headerLines = (headers) => Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("\n")

/**
 * The latest attempt's request and response, shown when the person opens them; the request's body
 * (the event) is read then.
 *
 * @param {import("./api.js").Api} api
 * @param {Delivery} delivery
 * @param {string} url the endpoint's
 */
function exchange(api, delivery, url) {
  const request = h("pre", {}, "Loading…")
  const response = delivery.response
  let loaded = false
  const details = h("details", {
    class: "request",
    ontoggle: () => {
      if (loaded || !details.open) return
      loaded = true
      api.get(`/v1/events/${encodeURIComponent(delivery.eventId)}`).then(
        (event) => {
          const headers = delivery.request === null ? "" : `${headerLines(delivery.request.headers)}\n`
          request.textContent = `POST ${url}\n${headers}\n${JSON.stringify(event, null, 2)}`
        },
        (error) => {
          loaded = false
          request.textContent = messageOf(error)
        }
      )
    }
  },
  h("summary", {}, "Request and response"),
  h("p", { class: "strong" }, "Request"),
  request,
  h("p", { class: "strong" }, "Response"),
  response === null
    ? h("p", { class: "muted" }, delivery.attempts === 0 ? "Not sent yet." : "No answer came.")
    : h("pre", {}, [
      `HTTP ${response.status}`,
      headerLines(response.headers),
      "",
      response.body === "" ? "(empty body)" : response.body,
      response.truncated ? "… (only the first 2 KiB are kept)" : ""
    ].filter((line, i) => line !== "" || i === 2).join("\n")))
  return details
}

/**
 * A table of deliveries with their requests and responses and a Redeliver button.
 *
 * `endpointUrls` names the endpoints; with one endpoint (its own log) the column is left out.
 *
 * @param {{ api: import("./api.js").Api, deliveries: ReadonlyArray<Delivery>, endpointUrls: ReadonlyMap<string, string>, caption: string, onRedelivered: () => void }} options
 */
export function deliveryTable(options) {
  const { api, deliveries } = options
  if (deliveries.length === 0) return h("p", { class: "muted" }, "No deliveries yet.")
  const problem = h("div", {})
  const oneEndpoint = options.endpointUrls.size === 1
  const rows = deliveries.map((delivery) => {
    const redeliver = actionButton({
      label: "Redeliver",
      ariaLabel: `Redeliver ${delivery.eventType} to ${options.endpointUrls.get(delivery.endpointId) ?? delivery.endpointId}`,
      problem,
      action: async () => {
        await api.post(`/v1/events/${encodeURIComponent(delivery.eventId)}/redeliver?endpointId=${encodeURIComponent(delivery.endpointId)}`)
        announce(`Redelivery of ${delivery.eventType} queued.`)
        options.onRedelivered()
      }
    })
    return [
      h("span", { class: "stack" },
        h("span", { class: "strong" }, delivery.eventType),
        h("code", { class: "id" }, delivery.eventId),
        delivery.redelivery ? h("span", { class: "muted" }, "redelivery") : null),
      oneEndpoint ? null : h("span", { class: "wrap" }, options.endpointUrls.get(delivery.endpointId) ?? delivery.endpointId),
      h("span", {}, statusBadge(delivery.status), delivery.status === "pending" && delivery.nextAttemptAt !== null ? h("span", { class: "muted" }, " next try ", time(delivery.nextAttemptAt)) : null),
      `${delivery.attempts}`,
      h("span", { class: "stack" },
        h("span", {}, responseText(delivery)),
        exchange(api, delivery, options.endpointUrls.get(delivery.endpointId) ?? delivery.endpointId)),
      redeliver
    ]
  })
  const columns = ["Event", "Endpoint", "Status", "Attempts", "Last response", ""].filter((c) => !(oneEndpoint && c === "Endpoint"))
  return h("div", {}, problem, table(options.caption, columns, rows.map((cells) => cells.filter((cell) => cell !== null))))
}
