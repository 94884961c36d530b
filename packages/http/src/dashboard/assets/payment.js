// @ts-check
/**
 * A payment's page: what was asked and paid (fiat and token), by whom, its timeline (created →
 * processing → outcome → settled, and a refund), its transactions with block explorer links, the
 * webhook deliveries of its events, and the actions that apply: cancel while it waits for the
 * buyer, once it succeeded its refunds (whole or in parts, see refunds.js), and an owner's approval
 * of a refund or settlement held over a payout limit; a held payment's funds, captures and voids
 * (hold.js). While the payment, its refund or a capture is under way the page follows it (the
 * status operation, then the record) and announces changes.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { formatAmount } from "./format.js"
import { addressOf, tokenAmount, transactionLink } from "./chain.js"
import { deliveryTable } from "./deliveries.js"
import { paymentReceipts, receiptsKey, receiptsTable } from "./receipts.js"
import { paymentEvents, timeline } from "./timeline.js"
import { actionButton } from "./forms.js"
import { holdSection, isOpen } from "./hold.js"
import { paymentRefunds, refundPanel, refundTotals } from "./refunds.js"
import { alertBox, announce, copyable, details, link, messageOf, orNotFound, section, statusBadge, statusLabel, time } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/** How often a payment or refund under way is read again (ms). */
const followMs = 1500

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The payment's webhook deliveries (to every endpoint of the partner), with the endpoints' URLs.
 *
 * @param {import("./api.js").Api} api
 * @param {string} paymentId
 */
async function deliveriesOf(api, paymentId) {
  const [endpoints, deliveries] = await Promise.all([
    api.get("/v1/webhooks", { limit: "100" }),
    api.get(`/v1/payments/${encodeURIComponent(paymentId)}/deliveries`, { limit: "100" })
  ])
  return {
    endpointUrls: new Map(/** @type {ReadonlyArray<{ id: string, url: string }>} */ (endpoints.data).map((e) => [e.id, e.url])),
    /** @type {ReadonlyArray<import("./deliveries.js").Delivery>} */
    deliveries: deliveries.data
  }
}

/**
 * The refund's words, for the summary.
 *
 * @param {any} refund
 * @param {boolean} [partly] some of the payment is left to refund
 */
const refundText = (refund, partly = false) =>
  refund === null
    ? "None"
    : { pending: "Refund under way", completed: partly ? "Partly refunded" : "Refunded", failed: "Refund failed" }[/** @type {string} */ (refund.status)] ?? refund.status

/**
 * @param {Context} context
 * @param {string} paymentId
 * @param {string} [seen] the status the page last announced, when it follows the payment
 */
export async function showPayment(context, paymentId, seen) {
  const { api, config } = context
  /** @type {any} */
  const payment = await orNotFound(context, () => api.get(`/v1/payments/${encodeURIComponent(paymentId)}`), {
    name: "payment-not-found",
    title: "Payment not found",
    text: context.session.mode === "sandbox"
      ? `There is no payment ${paymentId} for this account in test mode. A live payment is seen when signed in with a live key.`
      : `There is no payment ${paymentId} for this account in live mode. A test payment is seen when signed in with a test key.`,
    back: ["/dashboard/payments", "Back to payments"]
  })
  if (payment === undefined) return
  const [merchant, events, { deliveries, endpointUrls }, receipts, refunds] = await Promise.all([
    api.get(`/v1/merchants/${encodeURIComponent(payment.merchantId)}`).catch(() => null),
    paymentEvents(api, paymentId),
    deliveriesOf(api, paymentId),
    paymentReceipts(api, paymentId),
    // A held payment's captures went to the merchant: the service refunds none of it.
    payment.status === "succeeded" && payment.hold === undefined ? paymentRefunds(api, payment).catch((/** @type {unknown} */ error) => messageOf(error)) : []
  ])
  if (!context.isCurrent()) return
  // It may have moved on again since the follow loop looked (processing, then succeeded at once).
  if (seen !== undefined && seen !== payment.status) announce(`Payment ${statusLabel(payment.status).toLowerCase()}.`)

  const problem = h("div", { id: "payment-problem" })
  const refresh = () => {
    if (context.isCurrent()) void showPayment(context, paymentId).catch((error) => problem.replaceChildren(alertBox(messageOf(error))))
  }

  const cancel = actionButton({
    label: "Cancel payment",
    className: "secondary",
    problem,
    confirm: { title: "Cancel this payment?", text: "The buyer can no longer pay it. This cannot be undone.", confirm: "Cancel payment", danger: true },
    action: async () => {
      await api.post(`/v1/payments/${encodeURIComponent(paymentId)}/cancel`)
      announce("Payment cancelled.")
      refresh()
    }
  })

  // A refund or settlement held over a payout limit waits for an owner (the server refuses anyone else).
  const owner = context.session.member === null || context.session.member.role === "owner"
  /** @param {"refund" | "settlement"} kind */
  const approve = (kind) => payment[kind]?.waitingFor !== "approval" ? null : h("div", { class: "approval" },
    h("p", { class: "muted" }, `Waiting for an owner's approval: ${payment[kind].approvalReason}.`),
    owner
      ? actionButton({
        label: `Approve ${payment[kind].approvalReason}`,
        className: "primary small",
        problem,
        confirm: { title: `Approve this ${kind}?`, text: `It is sent at once, beyond the payout limit: ${payment[kind].approvalReason}.`, confirm: `Approve ${kind}` },
        action: async () => {
          await api.post(`/v1/payments/${encodeURIComponent(paymentId)}/${kind}/approve`)
          announce(`The ${kind} is approved.`)
          refresh()
        }
      })
      : null)

  const paidWith = payment.option === null ? null : tokenAmount(config, payment.option.asset, payment.option.value)
  // Funds are forwarded only to a destination the merchant has for the token paid (API rules §11).
  const paidAsset = payment.option === null ? null : String(payment.option.asset).toLowerCase()
  const settles = merchant === null || paidAsset === null ||
    (merchant.settlements?.crypto ?? []).some((/** @type {{ asset: string }} */ s) => s.asset.toLowerCase() === paidAsset)
  // Paid and to be forwarded, but the worker has not begun yet (it settles once the chain watcher saw the transfer).
  const settlementDue = settles && payment.status === "succeeded" && payment.hold === undefined && payment.refund === null && payment.settlement === null
  const buyer = payment.buyer === null ? null : addressOf(payment.buyer.accountCaip10)
  const chainId = payment.transaction?.chainId ?? (payment.option === null ? null : payment.option.asset.split("/")[0])
  /** @param {string | null | undefined} hash @param {string | null} [explorerUrl] */
  const tx = (hash, explorerUrl) => (typeof hash === "string" && chainId !== null ? transactionLink(config, chainId, hash, explorerUrl) : null)
  const transactions = [
    payment.transaction === null ? null : /** @type {const} */ ([payment.hold === undefined ? "Payment" : "Payment into escrow", tx(payment.transaction.hash, payment.transaction.explorerUrl)]),
    payment.settlement?.txHash == null ? null : /** @type {const} */ (["Settlement", tx(payment.settlement.txHash)]),
    payment.refund?.txHash == null ? null : /** @type {const} */ (["Refund", tx(payment.refund.txHash)])
  ]

  const held = payment.hold === undefined ? null : holdSection(context, { payment, refresh })
  // The latest refund's status alone would say "Refunded" after a part: say what is left.
  const partly = typeof refunds !== "string" && payment.refund !== null && refundTotals(payment, refunds).left > 0n
  showView("payment", [
    h("p", { class: "crumbs" }, link("/dashboard/payments", {}, "← Payments")),
    h("div", { class: "title-row" },
      h("h1", {}, `${formatAmount(payment.amount)} · ${payment.referenceId}`),
      h("span", { id: "payment-status", "data-status": payment.status }, statusBadge(payment.status)),
      payment.refund === null ? null : h("span", { class: `status status-${payment.refund.status}` }, refundText(payment.refund, partly))),
    problem,
    h("div", { class: "actions-row" },
      payment.status === "requires_action" ? cancel : null),
    approve("refund"),
    approve("settlement"),
    // While funds are held, capturing them is what the merchant came for: first.
    payment.status === "authorized" ? held : null,
    h("div", { class: "columns" },
      section("Summary", details([
        ["Amount", formatAmount(payment.amount)],
        ["Paid with", paidWith ?? "Not paid yet"],
        ["Order reference", payment.referenceId],
        ["Merchant", merchant === null ? payment.merchantId : link(`/dashboard/merchants/${payment.merchantId}`, {}, merchant.merchantName)],
        ["Payment id", copyable(payment.paymentId, "payment id")],
        buyer === null ? null : ["Buyer account", copyable(buyer, "buyer account")],
        ["Created", time(payment.createdAt)],
        payment.isFinal || payment.status === "authorized" ? null : ["Expires", time(payment.expiresAt)],
        // Captures go from the escrow straight to the merchant's destination: nothing settles after.
        payment.status === "succeeded" && payment.hold !== undefined ? ["Settlement", "Each capture went straight to the merchant's settlement destination"] : null,
        payment.status === "succeeded" && payment.hold === undefined && !(payment.refund !== null && payment.settlement === null)
          ? ["Settlement", payment.settlement !== null
            ? statusLabel(payment.settlement.status)
            : settlementDue ? "Not settled yet" : "None: the merchant has no settlement destination for this token, so the funds stay at the collection address"]
          : null,
        payment.status === "succeeded"
          ? ["Refund", payment.hold === undefined ? refundText(payment.refund, partly) : "From the merchant's settlement destination: the service holds none of what was captured"]
          : null
      ])),
      section("Timeline", timeline(payment, events, settles, partly))),
    payment.status === "authorized" ? null : held,
    payment.status !== "succeeded" || payment.hold !== undefined ? null : section("Refunds", typeof refunds === "string"
      ? alertBox(refunds)
      : refundPanel(context, { payment, refunds, receipts, buyer, refresh })),
    transactions.some((t) => t !== null) ? section("Transactions", details(transactions)) : null,
    receipts.length === 0 ? null : section("Transfers received", receiptsTable(context, receipts, problem, refresh)),
    section("Webhook deliveries", endpointUrls.size === 0
      ? h("p", { class: "muted" }, "No webhook endpoint is registered, so nothing was sent. ", link("/dashboard/developers", {}, "Add an endpoint"))
      : deliveryTable({
      api,
      deliveries,
      endpointUrls,
      caption: "Webhook deliveries of this payment's events",
      onRedelivered: refresh
    }))
  ], { focus: context.followed !== true })

  void follow(context, payment, receipts, settlementDue)
}

/** Counts the page's follow rounds: only the newest runs. */
let rounds = 0

/** @param {any} payment */
const holdUnderWay = (payment) => payment.status === "authorized" && (payment.hold?.operations ?? []).some(isOpen)

/**
 * What became of the held payment's captures and voids under way: "Capture completed." etc.
 *
 * @param {any} before
 * @param {any} next
 * @returns {string | null}
 */
function holdNews(before, next) {
  const was = before.hold?.operations ?? []
  for (const [i, op] of (next.hold?.operations ?? []).entries()) {
    if (was[i] === undefined || !isOpen(was[i]) || isOpen(op)) continue
    return `${op.kind === "capture" ? "Capture" : "Void"} ${op.status === "succeeded" ? "completed" : "failed"}.`
  }
  return null
}

/**
 * Reads the payment again until what is under way is over (its status with the status operation
 * while it is not final, its refund, settlement (also one due but not begun) and received
 * transfers), then shows the page again.
 *
 * @param {Context} context
 * @param {any} payment
 * @param {ReadonlyArray<import("./receipts.js").Receipt>} receipts
 * @param {boolean} settlementDue
 */
async function follow(context, payment, receipts, settlementDue) {
  const underWay = !payment.isFinal || holdUnderWay(payment) || payment.refund?.status === "pending" || payment.settlement?.status === "pending" ||
    settlementDue || receipts.some((r) => r.refund?.status === "pending")
  // The page shown again (after a capture, say) follows anew: this round stops.
  const round = ++rounds
  const current = () => context.isCurrent() && round === rounds
  if (!underWay) return
  const id = encodeURIComponent(payment.paymentId)
  let seen = payment.status
  while (current()) {
    await sleep(followMs)
    if (!current()) return
    try {
      // A capture changes the record, not the status: follow the record while one is under way.
      if (!payment.isFinal && !holdUnderWay(payment)) {
        const status = await context.api.get(`/v1/payments/${id}/status`)
        seen = status.status
        if (status.status !== payment.status) announce(`Payment ${statusLabel(status.status).toLowerCase()}.`)
        else if (receiptsKey(await paymentReceipts(context.api, payment.paymentId)) !== receiptsKey(receipts)) announce("A transfer was received.")
        else continue
      } else {
        const [next, nextReceipts] = await Promise.all([context.api.get(`/v1/payments/${id}`), paymentReceipts(context.api, payment.paymentId)])
        const same = next.stateVersion === payment.stateVersion && next.refund?.refundId === payment.refund?.refundId &&
          next.refund?.status === payment.refund?.status &&
          next.settlement?.status === payment.settlement?.status && receiptsKey(nextReceipts) === receiptsKey(receipts) &&
          next.refund?.waitingFor === payment.refund?.waitingFor && next.settlement?.waitingFor === payment.settlement?.waitingFor
        if (same) continue
        seen = next.status
        const news = next.status !== payment.status ? `Payment ${statusLabel(next.status).toLowerCase()}.` : holdNews(payment, next)
        if (news !== null) announce(news)
        else if (next.refund?.status !== payment.refund?.status) announce(`Refund ${statusLabel(next.refund?.status ?? "").toLowerCase()}.`)
      }
    } catch {
      // A passing outage: try again on the next round.
      continue
    }
    if (!current()) return
    await showPayment({ ...context, followed: true }, payment.paymentId, seen)
    return
  }
}
