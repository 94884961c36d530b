// @ts-check
/**
 * A payment's story: created → processing → succeeded / failed / expired / cancelled → settled,
 * and its refund, each step with its time when its event is known; a held payment's authorization,
 * captures and its end (succeeded, voided, reclaimed) instead of the settlement. Steps still ahead
 * are shown as such, so a person sees where the payment stands.
 *
 * @module
 */
import { h } from "./dom.js"
import { statusLabel, time } from "./ui.js"

/** @typedef {{ id: string, type: string, createdAt: number, data: { payment: { paymentId: string } } }} PaymentEvent */

/** The most events of one payment read (a payment has a handful). */
const maxEventPages = 5

/**
 * The payment's events, oldest first.
 *
 * @param {import("./api.js").Api} api
 * @param {string} paymentId
 * @returns {Promise<ReadonlyArray<PaymentEvent>>}
 */
export async function paymentEvents(api, paymentId) {
  /** @type {Array<PaymentEvent>} */
  const found = []
  let cursor = ""
  for (let page = 0; page < maxEventPages; page++) {
    const events = await api.get("/v1/events", { paymentId, limit: "100", cursor })
    found.push(...events.data)
    if (events.nextCursor === null) break
    cursor = events.nextCursor
  }
  return found.reverse()
}

/** @typedef {{ label: string, state: "done" | "current" | "ahead" | "failed", when: number | null, note?: string }} Step */

/**
 * A held payment's steps between processing and its end: authorized, then each capture (and a
 * capture that failed) by its event.
 *
 * @param {any} payment
 * @param {ReadonlyArray<PaymentEvent>} events
 * @param {(type: string) => number | null} at
 * @returns {Array<Step>}
 */
function heldSteps(payment, events, at) {
  const authorizedAt = at("payment.authorized")
  if (authorizedAt === null && payment.hold.authorized === "0") {
    return ["requires_action", "processing"].includes(payment.status) ? [{ label: "Authorized", state: "ahead", when: null, note: "Funds held until you capture them" }] : []
  }
  const open = payment.status === "authorized"
  return [
    { label: "Authorized", state: open ? "current" : "done", when: authorizedAt, ...(open ? { note: "Funds held until you capture them" } : {}) },
    ...events.flatMap((e) => /** @type {Array<Step>} */ (
      e.type === "payment.captured"
        ? [{ label: "Part captured", state: "done", when: e.createdAt }]
        : e.type === "payment.capture_failed"
        ? [{ label: "Capture failed", state: "failed", when: e.createdAt }]
        : []))
  ]
}

/**
 * @param {any} payment the payment record
 * @param {ReadonlyArray<PaymentEvent>} events
 * @param {boolean} settles whether the merchant has a settlement destination for what was paid
 * @param {boolean} [partlyRefunded] some of the payment is left to refund after its refunds
 *   (without one the funds stay at the collection address: no Settled step)
 */
export function timeline(payment, events, settles, partlyRefunded = false) {
  /** @param {string} type */
  const at = (type) => events.find((e) => e.type === type)?.createdAt ?? null
  const status = /** @type {string} */ (payment.status)
  const waiting = status === "requires_action"
  const outcome = waiting || status === "processing" ? null : status
  const processedAt = at("payment.processing")
  // Expired or cancelled while waiting for the buyer: it never processed.
  const neverProcessed = processedAt === null && (status === "expired" || status === "cancelled")
  /** @type {Array<Step>} */
  const steps = [
    { label: "Created", state: "done", when: payment.createdAt },
    ...(neverProcessed
      ? []
      : [{
        label: "Processing",
        state: /** @type {"current" | "ahead" | "done"} */ (status === "processing" ? "current" : waiting ? "ahead" : "done"),
        when: processedAt,
        ...(waiting ? { note: "Waiting for the buyer to pay" } : {})
      }]),
    ...(payment.hold === undefined ? [] : heldSteps(payment, events, at)),
    payment.hold !== undefined && (outcome === null || outcome === "authorized")
      ? { label: "Captured or voided", state: "ahead", when: null }
      : outcome === null
      ? { label: "Succeeded", state: "ahead", when: null }
      : {
        label: statusLabel(outcome),
        state: outcome === "succeeded" ? "done" : "failed",
        when: at(`payment.${outcome}`) ?? payment.cancelledAt ?? null
      }
  ]
  // A refunded payment's funds went back to the buyer: there is nothing to settle.
  const settling = payment.hold === undefined && (payment.settlement !== null || settles)
  if (settling && (outcome === null || (outcome === "succeeded" && (payment.refund === null || payment.settlement !== null)))) {
    const settlement = payment.settlement
    steps.push({
      label: "Settled",
      state: settlement === null ? "ahead" : settlement.status === "completed" ? "done" : settlement.status === "failed" ? "failed" : "current",
      when: settlement?.settledAt ?? at("payment.settled"),
      ...(settlement?.status === "failed" ? { note: "Settlement failed" } : {})
    })
  }
  if (payment.refund !== null) {
    const refund = payment.refund
    steps.push({
      label: refund.status === "completed" ? (partlyRefunded ? "Partly refunded" : "Refunded") : refund.status === "failed" ? "Refund failed" : "Refund under way",
      state: refund.status === "completed" ? "done" : refund.status === "failed" ? "failed" : "current",
      when: null
    })
  }
  const stateWords = { done: "done", current: "in progress", ahead: "not yet", failed: "ended" }
  return h(
    "ol",
    { class: "timeline" },
    steps.map((step) =>
      h(
        "li",
        { class: `step step-${step.state}`, "aria-current": step.state === "current" ? "step" : false },
        h("span", { class: "step-dot", "aria-hidden": "true" }),
        h("span", { class: "stack" },
          h("span", { class: "strong" }, step.label, h("span", { class: "visually-hidden" }, ` (${stateWords[step.state]})`)),
          step.when === null ? null : h("span", { class: "muted" }, time(step.when)),
          step.note === undefined ? null : h("span", { class: "muted" }, step.note))
      ))
  )
}
