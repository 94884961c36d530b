// @ts-check
/**
 * A succeeded payment's refunds on its page: what was paid, already refunded and left, each refund
 * transfer, and a form to give back all that is left (the default) or part of it, checked in the
 * page before the service decides (`POST /v1/refunds`). The refunds are the payment's own list
 * (`GET /v1/payments/{id}/refunds`), each with its transfers: one per sender of the payment's
 * parts, each shown with its share of its refund's amount. An overpayment's excess is offered on
 * its own: that is its receipt's refund, not the payment's.
 *
 * @module
 */
import { h } from "./dom.js"
import { formatAmount, toDecimal } from "./format.js"
import { GatewayError } from "./gateway.js"
import { tokenAmount, transactionLink } from "./chain.js"
import { confirmDialog, busy, field, input } from "./forms.js"
import { sendBackButton } from "./receipts.js"
import { alertBox, announce, details, messageOf, shownOnce, statusBadge, table, time } from "./ui.js"
import { minorUnits } from "./units.js"

/** @typedef {{ recipient: string, value: string, status: string, txHash: string | null }} RefundTransfer */
/** @typedef {{ refundId: string, status: string, amount: { unit: string, value: string }, tokenValue: string, asset: string, createdAt: number, transfers: ReadonlyArray<RefundTransfer> }} PaymentRefund */

/**
 * The payment's refunds, oldest first, with their transfers.
 *
 * @param {import("./api.js").Api} api
 * @param {any} payment
 * @returns {Promise<ReadonlyArray<PaymentRefund>>}
 */
export async function paymentRefunds(api, payment) {
  return (await api.get(`/v1/payments/${encodeURIComponent(payment.paymentId)}/refunds`)).data
}

/**
 * Each transfer's share of its refund's amount (minor units), in proportion to the tokens it sends;
 * the last takes what rounding down left, so the shares add up to the refund.
 *
 * @param {PaymentRefund} refund
 * @returns {ReadonlyArray<bigint>}
 */
export function transferShares(refund) {
  const amount = BigInt(refund.amount.value)
  const total = BigInt(refund.tokenValue)
  let left = amount
  return refund.transfers.map((transfer, index) => {
    const share = index === refund.transfers.length - 1 || total === 0n ? left : (amount * BigInt(transfer.value)) / total
    left -= share
    return share
  })
}

/**
 * Why `text` cannot be refunded, or the amount in minor units.
 *
 * @param {string} text
 * @param {any} payment
 * @param {bigint} left
 * @returns {{ value: bigint } | { problem: string }}
 */
export function checkAmount(text, payment, left) {
  const { decimals } = payment.amount.display
  const of = (/** @type {bigint} */ value) => formatAmount({ ...payment.amount, value: value.toString() })
  const value = minorUnits(text, decimals)
  if (value === null) {
    return { problem: decimals === 0 ? "Enter a whole amount, like 500." : `Enter an amount with at most ${decimals} decimals, like ${toDecimal("500", decimals)}.` }
  }
  if (value <= 0n) return { problem: "Enter an amount more than zero." }
  if (value > left) return { problem: `At most ${of(left)} is left to refund.` }
  return { value }
}

/**
 * The refunds section of a succeeded payment.
 *
 * @param {{ api: import("./api.js").Api, config: any }} context
 * @param {{ payment: any, refunds: ReadonlyArray<PaymentRefund>, receipts: ReadonlyArray<import("./receipts.js").Receipt>, buyer: string | null, refresh: () => void }} state
 */
export function refundPanel(context, state) {
  const { api, config } = context
  const { payment, refunds, buyer, refresh } = state
  const { paid, refunded, left } = refundTotals(payment, refunds)
  const { decimals } = payment.amount.display
  const of = (/** @type {bigint} */ value) => formatAmount({ ...payment.amount, value: value.toString() })
  const to = buyer === null ? "the buyer's account" : `the buyer's account ${buyer}`

  const problem = h("div", { class: "form-problem", id: "refund-problem" })
  const whole = h("input", { type: "radio", name: "refund-kind", id: "refund-whole", value: "whole", checked: true })
  const part = h("input", { type: "radio", name: "refund-kind", id: "refund-part", value: "part" })
  const currency = String(payment.amount.unit).replace(/^iso4217\//, "")
  const amount = input("refund-amount", { inputmode: "decimal", autocomplete: "off", disabled: true })
  const amountHint = `In ${currency}, at most ${of(left)}${decimals === 0 ? ", a whole number" : `, up to ${decimals} decimals`}.`
  const choose = () => {
    amount.disabled = !part.checked
    if (part.checked) amount.focus()
  }
  whole.addEventListener("change", choose)
  part.addEventListener("change", choose)
  // Where it goes: back to the payer, or to an address the buyer chooses through a one-time link.
  const toPayer = h("input", { type: "radio", name: "refund-to", id: "refund-to-payer", value: "payer", checked: true })
  const toClaim = h("input", { type: "radio", name: "refund-to", id: "refund-to-claim", value: "claim" })
  const submit = h("button", { type: "submit", class: "button secondary danger-outline" }, "Refund…")
  const ask = async () => {
    problem.replaceChildren()
    amount.removeAttribute("aria-invalid")
    const checked = part.checked ? checkAmount(amount.value, payment, left) : { value: left }
    if ("problem" in checked) {
      amount.setAttribute("aria-invalid", "true")
      problem.replaceChildren(alertBox(checked.problem))
      amount.focus()
      return
    }
    const rest = !part.checked || checked.value === left
    const claim = toClaim.checked
    const ok = await confirmDialog({
      title: `Refund ${of(checked.value)}?`,
      text: claim
        ? `${rest ? "All that is left of the payment" : "This part of the payment"} is set aside for the buyer, who chooses the address on the page of a one-time link you send them. This cannot be undone.`
        : `${rest ? "All that is left of the payment is" : "This part of the payment is"} sent back on chain to ${to}. This cannot be undone.`,
      confirm: claim ? `Create a link for ${of(checked.value)}` : `Refund ${of(checked.value)}`,
      danger: true
    })
    if (!ok) return
    await busy(submit, async () => {
      try {
        // All that is left is asked without an amount: the service knows it exactly.
        const created = await api.post("/v1/refunds", {
          paymentId: payment.paymentId,
          ...(part.checked ? { amount: { unit: payment.amount.unit, value: checked.value.toString() } } : {}),
          ...(claim ? { to: "claim" } : {})
        })
        if (claim) {
          // The link is shown once (a new one can be issued through the API); it is listed here once claimed.
          form.replaceChildren(
            shownOnce(`Send the buyer this link to choose where the refund goes. It works once, until ${new Date(created.claimExpiresAt * 1000).toUTCString().replace("GMT", "UTC")}:`, created.claimUrl, "claim link"),
            h("p", { class: "muted" }, `${of(checked.value)} is set aside for it now; the refund is listed here once the buyer has chosen the address.`)
          )
          announce("Refund link created. Copy it and send it to the buyer.")
          return
        }
        announce("Refund requested. It is sent on chain in a moment.")
        refresh()
      } catch (error) {
        problem.replaceChildren(alertBox(describe(error)))
      }
    })
  }

  const form = h("form", {
    class: "form refund-form",
    novalidate: true,
    onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault()
      void ask()
    }
  },
  h("fieldset", { class: "fieldset refund-kind" },
    h("legend", {}, "How much to refund"),
    h("label", { class: "choice", for: whole.id }, whole, `All that is left, ${of(left)}`),
    h("label", { class: "choice", for: part.id }, part, "Part of it")),
  field(`Amount (${currency})`, amount, amountHint),
  h("fieldset", { class: "fieldset refund-kind" },
    h("legend", {}, "Where it goes"),
    h("label", { class: "choice", for: toPayer.id }, toPayer, "Back to the account that paid"),
    h("label", { class: "choice", for: toClaim.id }, toClaim, "Send the buyer a link to choose the address")),
  problem,
  h("div", { class: "filter-actions" }, submit))

  const excess = state.receipts.filter((r) => r.outcome === "overpaid" && r.refund === null && /^[1-9][0-9]*$/.test(r.refundableValue))
  return h("div", { class: "refund-panel" },
    details([
      ["Paid", of(paid)],
      ["Refunded", of(refunded)],
      ["Left to refund", of(left)]
    ]),
    ...excess.map((receipt) => h("div", { class: "excess" },
      h("p", {}, `The buyer paid ${tokenAmount(config, receipt.asset, receipt.refundableValue)} more than asked. You can send back just that excess, leaving the payment as it is.`),
      sendBackButton(context, receipt, problem, refresh, "Refund the excess"))),
    refunds.length === 0
      ? h("p", { class: "muted" }, "No refund yet.")
      : table("Refunds of this payment", ["Requested", "Amount", "Sent back", "Status", "Transaction"], refunds.flatMap((refund) => {
        const shares = transferShares(refund)
        const network = refund.asset.slice(0, refund.asset.indexOf("/"))
        return refund.transfers.map((transfer, index) => [
          time(refund.createdAt),
          of(shares[index] ?? 0n),
          tokenAmount(config, refund.asset, transfer.value),
          statusBadge(transfer.status),
          typeof transfer.txHash === "string" && transfer.txHash !== "" ? transactionLink(config, network, transfer.txHash) : "—"
        ])
      })),
    left > 0n ? form : h("p", { class: "muted" }, "The payment is refunded in full."))
}

/**
 * What was paid, what its refunds gave back so far and what is left, in the payment's minor units.
 *
 * @param {any} payment
 * @param {ReadonlyArray<PaymentRefund>} refunds
 */
export function refundTotals(payment, refunds) {
  const paid = BigInt(payment.amount.value)
  const refunded = refunds.reduce((sum, refund) => sum + BigInt(refund.amount.value), 0n)
  return { paid, refunded, left: paid > refunded ? paid - refunded : 0n }
}

/**
 * The service's refusal in one line; `already_refunded` carries how much is left.
 *
 * @param {unknown} error
 */
function describe(error) {
  if (!(error instanceof GatewayError)) return messageOf(error)
  if (error.code === "already_refunded") return `Not refunded: ${error.message} Reload the page to see the other refunds.`
  return error.status === 409 ? `This payment cannot be refunded: ${error.message}` : messageOf(error)
}
