// @ts-check
/**
 * A held payment (`capture: "manual"`) in the checkout: the buyer's funds wait in an escrow until
 * the merchant takes them, and what it does not take by the capture deadline comes back. The
 * gateway API reads `authorized` as `succeeded` and a void or reclaim as `failed`, so the page
 * words its outcome from the page's own data (`config.hold`) instead.
 *
 * @module
 */
import { h } from "./dom.js"
import { formatAmount, formatDateTime } from "./format.js"
import { config, merchantName, nowSeconds, state } from "./checkout-state.js"

/** @typedef {import("./checkout-state.js").Status} Status */
/** @typedef {import("./dom.js").Child} Child */

export const hold = config.hold

/** The capture deadline on the buyer's clock, with its time zone, in bold: the one fact to find again. */
const deadline = () => h("strong", { class: "hold-deadline" }, hold === null ? "" : formatDateTime(hold.captureBefore, nowSeconds()))

/** What becomes of what the merchant does not take: the end of a sentence. */
const untaken = () =>
  hold?.voidAtDeadline === false
    ? ["after ", deadline(), " you can take back anything not taken."]
    : ["anything not taken by ", deadline(), " comes back to you."]

/** The one sentence near the amount while the buyer decides; `null` for an ordinary payment. */
export function holdNote() {
  return hold === null ? null : h("p", { class: "hold-note" }, `This amount is held, not paid, until ${merchantName()} takes it; `, untaken())
}

/** The pay button's verb: a held payment is authorized, not paid. */
export const payVerb = hold === null ? "Pay" : "Authorize"

/**
 * The outcome view of a held payment, as `[view, title, text]`, or `null` when the ordinary one
 * fits. `fresh`: authorized during this visit (the status the page loaded with is older).
 *
 * @param {Status} status the gateway's status
 * @param {boolean} fresh
 * @returns {[string, string, ReadonlyArray<Child>] | null}
 */
export function heldOutcome(status, fresh) {
  if (hold === null) return null
  const merchant = merchantName()
  if (status === "succeeded" && (fresh || hold.status === "authorized")) {
    const amount = state.paidAmount ?? state.info?.amount
    const held = amount === undefined ? "The amount" : `Your ${formatAmount(amount)}`
    const [first, ...rest] = untaken()
    const capital = typeof first === "string" ? `${first[0]?.toUpperCase()}${first.slice(1)}` : first
    return ["authorized", "Payment authorized", [`${held} is held for ${merchant}, not paid yet. `, capital, ...rest]]
  }
  if (status === "succeeded") return ["paid", "This payment is complete", [`${merchant} has taken this payment. Anything it did not take went back to you.`]]
  if (hold.status === "voided") return ["returned", "The held amount came back to you", [`${merchant} did not take this payment, so the amount held went back to your account.`]]
  if (hold.status === "reclaimed") return ["returned", "You took back the held amount", [`${merchant} did not take this payment in time, and you took back the amount held.`]]
  return null
}
