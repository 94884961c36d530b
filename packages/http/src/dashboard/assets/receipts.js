// @ts-check
/**
 * The transfers the chain watcher recorded for a payment (`GET /v1/receipts?paymentId=`): what
 * arrived, from whom, in which transaction, and whether it paid, paid too much, too little or too
 * late. What the payment did not keep (an overpayment's excess, an underpaid or late transfer) can
 * be sent back to its sender (`POST /v1/receipts/{id}/refund`), after a confirmation.
 *
 * @module
 */
import { h } from "./dom.js"
import { actionButton } from "./forms.js"
import { addressOf, tokenAmount, transactionLink } from "./chain.js"
import { announce, statusBadge, table, time } from "./ui.js"

/** @typedef {{ receiptId: string, outcome: string, chainId: string, asset: string, txHash: string, blockTime: number, from: string, value: string, expectedValue: string | null, shortfall: string, refundableValue: string, refund: { status: string, value: string, txHash: string | null } | null }} Receipt */

const outcomes = /** @type {Record<string, string>} */ ({
  paid: "Paid the amount",
  overpaid: "Paid more than the amount",
  late: "Arrived too late: did not pay",
  unmatched: "Not matched to a payment"
})

/**
 * What a transfer did. A `paid` one of less than was still asked for when it arrived was underpaid
 * and completed by a later transfer: it counts towards the payment.
 *
 * @param {any} config
 * @param {Receipt} receipt
 */
function outcomeText(config, receipt) {
  if (receipt.outcome === "underpaid") {
    return `Less than the amount (${tokenAmount(config, receipt.asset, receipt.shortfall, false)} short)`
  }
  if (receipt.outcome === "paid" && receipt.expectedValue !== null && BigInt(receipt.value) < BigInt(receipt.expectedValue)) {
    return "Part of the amount, completed by a later transfer"
  }
  return outcomes[receipt.outcome] ?? receipt.outcome
}

/**
 * The payment's receipts, newest first (a payment has a few).
 *
 * @param {import("./api.js").Api} api
 * @param {string} paymentId
 * @returns {Promise<ReadonlyArray<Receipt>>}
 */
export async function paymentReceipts(api, paymentId) {
  return (await api.get("/v1/receipts", { paymentId, limit: "100" })).data
}

/**
 * A key that changes when a receipt arrives or its refund moves on.
 *
 * @param {ReadonlyArray<Receipt>} receipts
 */
export const receiptsKey = (receipts) => receipts.map((r) => `${r.receiptId}:${r.refund?.status ?? ""}`).join(",")

/**
 * @param {{ api: import("./api.js").Api, config: import("./context.js").DashboardConfig }} context
 * @param {ReadonlyArray<Receipt>} receipts
 * @param {HTMLElement} problem
 * @param {() => void} refresh
 */
export function receiptsTable(context, receipts, problem, refresh) {
  const { config } = context
  const rows = receipts.map((receipt) => {
    const refundable = receipt.refund === null && /^[1-9][0-9]*$/.test(receipt.refundableValue)
    return [
      h("span", { class: "stack" }, h("span", { class: "strong" }, tokenAmount(config, receipt.asset, receipt.value)), time(receipt.blockTime)),
      outcomeText(config, receipt),
      h("span", { class: "wrap" }, addressOf(receipt.from)),
      transactionLink(config, receipt.chainId, receipt.txHash),
      receipt.refund !== null
        ? h("span", { class: "stack" }, h("span", {}, "Sent back: ", statusBadge(receipt.refund.status)),
          receipt.refund.txHash === null ? null : transactionLink(config, receipt.chainId, receipt.refund.txHash))
        : refundable
        ? sendBackButton(context, receipt, problem, refresh, "Send back")
        : "—"
    ]
  })
  return table("Transfers received for this payment", ["Received", "Outcome", "From", "Transaction", "Sent back"], rows)
}

/**
 * A button sending back what the payment did not keep of `receipt` (an overpayment's excess, an
 * underpaid or late transfer) to its sender, after a confirmation.
 *
 * @param {{ api: import("./api.js").Api, config: import("./context.js").DashboardConfig }} context
 * @param {Receipt} receipt
 * @param {HTMLElement} problem
 * @param {() => void} refresh
 * @param {string} label
 */
export function sendBackButton(context, receipt, problem, refresh, label) {
  const back = tokenAmount(context.config, receipt.asset, receipt.refundableValue)
  return actionButton({
    label,
    ariaLabel: `${label} ${back} to ${addressOf(receipt.from)}`,
    problem,
    confirm: {
      title: `Send back ${back}?`,
      text: `It goes back on chain to ${addressOf(receipt.from)}, the account it came from. This cannot be undone.`,
      confirm: "Send back",
      danger: true
    },
    action: async () => {
      await context.api.post(`/v1/receipts/${encodeURIComponent(receipt.receiptId)}/refund`)
      announce("Sending it back. It is sent on chain in a moment.")
      refresh()
    }
  })
}
