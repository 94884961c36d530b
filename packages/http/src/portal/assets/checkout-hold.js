// @ts-check
/**
 * A held payment (`capture: "manual"`) in the checkout: the buyer's funds wait in an escrow until
 * the merchant takes them, and what it does not take by the capture deadline comes back. The
 * gateway API reads `authorized` as `succeeded` and a void or reclaim as `failed`, so the page
 * words its outcome from the page's own data (`config.hold`) instead.
 *
 * @module
 */
import { formatAmount, formatDateTime } from "./format.js"
import { config, merchantName, nowSeconds, state } from "./checkout-state.js"

/** @typedef {import("./checkout-state.js").Status} Status */

export const hold = config.hold

/** The capture deadline on the buyer's clock, with its time zone. */
const deadline = () => (hold === null ? "" : formatDateTime(hold.captureBefore, nowSeconds()))

/** What becomes of what the merchant does not take, for the end of a sentence. */
function untaken() {
  const merchant = merchantName()
  return hold?.voidAtDeadline === false
    ? `after ${deadline()} you can take back whatever ${merchant} has not taken`
    : `whatever ${merchant} does not take by ${deadline()} comes back to you`
}

/** The one sentence next to the amount while the buyer decides; "" for an ordinary payment. */
export function holdNote() {
  return hold === null ? "" : `This amount is held, not paid, until ${merchantName()} takes it; ${untaken()}.`
}

/**
 * The outcome view of a held payment, as `[view, title, text]`, or `null` when the ordinary one
 * fits. `fresh`: authorized during this visit (the status the page loaded with is older).
 *
 * @param {Status} status the gateway's status
 * @param {boolean} fresh
 * @returns {[string, string, string] | null}
 */
export function heldOutcome(status, fresh) {
  if (hold === null) return null
  const merchant = merchantName()
  if (status === "succeeded" && (fresh || hold.status === "authorized")) {
    const amount = state.paidAmount ?? state.info?.amount
    const held = amount === undefined ? "The amount" : `Your ${formatAmount(amount)}`
    const next = untaken()
    return ["authorized", "Payment authorized", `${held} is held for ${merchant}, not paid yet. ${next[0]?.toUpperCase()}${next.slice(1)}.`]
  }
  if (status === "succeeded") return ["paid", "This payment is complete", `${merchant} has taken this payment. Anything it did not take went back to you.`]
  if (hold.status === "voided") return ["returned", "The held amount came back to you", `${merchant} did not take this payment, so the amount held went back to your account.`]
  if (hold.status === "reclaimed") return ["returned", "You took back the held amount", `${merchant} did not take this payment in time, and you took back the amount held.`]
  return null
}
