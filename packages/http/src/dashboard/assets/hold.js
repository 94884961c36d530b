// @ts-check
/**
 * A held payment's funds on its page (created with `capture: "manual"`, docs/held-payments.md):
 * the capture deadline and how long is left, what the escrow holds, what was captured and what
 * went back to the buyer (in words and as a bar), the captures and voids asked so far, and while
 * the funds are held the capture form (all that is left by default) and the void button. The
 * worker carries each request out on chain; the page follows it (payment.js).
 *
 * @module
 */
import { h } from "./dom.js"
import { formatAmount, toDecimal } from "./format.js"
import { GatewayError } from "./gateway.js"
import { tokenAmount, transactionLink } from "./chain.js"
import { svg } from "./chart.js"
import { actionButton, busy, field, input } from "./forms.js"
import { alertBox, announce, details, messageOf, section, statusBadge, table, time } from "./ui.js"
import { minorUnits } from "./units.js"

/** @typedef {{ kind: "capture" | "void", amount: string, value: { unit: string, value: string }, status: string, txHash: string | null, failure: string | null, requestedBy: "merchant" | "deadline", requestedAt: number, completedAt: number | null }} HoldOperation */

/** @param {HoldOperation} op */
export const isOpen = (op) => op.status === "pending" || op.status === "submitted"

/**
 * "2 days 3 hours", "40 minutes": the time until `seconds`, in its two largest units.
 *
 * @param {number} seconds Unix seconds
 * @param {number} now Unix seconds
 */
export function timeLeft(seconds, now) {
  const left = seconds - now
  if (left < 60) return "less than a minute"
  /** @type {ReadonlyArray<readonly [string, number]>} */
  const counts = [["day", Math.floor(left / 86_400)], ["hour", Math.floor((left % 86_400) / 3_600)], ["minute", Math.floor((left % 3_600) / 60)]]
  const parts = counts.filter(([, count]) => count > 0).slice(0, 2)
  return parts.map(([unit, count]) => `${count} ${unit}${count === 1 ? "" : "s"}`).join(" ")
}

/**
 * Where a held payment's money is, in the payment currency's minor units: captured, being captured
 * (asked, not on chain yet), still held and free to capture, and given back to the buyer.
 *
 * @param {any} payment
 */
export function holdTotals(payment) {
  const hold = payment.hold
  const paid = BigInt(payment.amount.value)
  const captured = BigInt(hold.capturedAmount.value)
  const open = /** @type {ReadonlyArray<HoldOperation>} */ (hold.operations).filter((op) => op.kind === "capture" && isOpen(op))
  const capturing = open.reduce((sum, op) => sum + BigInt(op.value.value), 0n)
  const released = hold.released === null ? 0n : paid - captured
  const left = hold.released === null ? paid - captured - capturing : 0n
  return { paid, captured, capturing, left: left > 0n ? left : 0n, released }
}

/**
 * The bar: captured, being captured, left to capture and given back, side by side (its label says the same in words).
 *
 * @param {ReturnType<typeof holdTotals>} totals
 * @param {(value: bigint) => string} of
 */
function holdBar(totals, of) {
  const parts = /** @type {const} */ ([
    ["captured", "Captured", totals.captured],
    ["capturing", "Being captured", totals.capturing],
    // Not "still held": the escrow holds what is being captured too (the details say so).
    ["held", "Left to capture", totals.left],
    ["released", "Given back", totals.released]
  ]).filter(([kind, , value]) => value > 0n || kind === "captured" || (kind === "held" && totals.released === 0n))
  const whole = totals.paid > 0n ? totals.paid : 1n
  let x = 0
  const bar = svg("svg", { class: "hold-bar", viewBox: "0 0 1000 16", preserveAspectRatio: "none", "aria-hidden": "true" },
    ...parts.map(([kind, , value]) => {
      const width = Number((value * 1000n) / whole)
      const rect = svg("rect", { class: `part-${kind}`, x, y: 0, width, height: 16 })
      x += width
      return rect
    }))
  return h("figure", { class: "hold-figure", role: "img", "aria-label": parts.map(([, label, value]) => `${label} ${of(value)}`).join(", ") },
    bar,
    h("figcaption", { class: "chart-legend", "aria-hidden": "true" },
      parts.map(([kind, label, value]) => h("span", { class: `key key-${kind}` }, `${label} `, h("span", { class: "strong" }, of(value))))))
}

/**
 * The service's refusal of a capture or void in one line.
 *
 * @param {string} what "captured" or "voided"
 * @returns {(error: unknown) => string}
 */
const refused = (what) => (error) => error instanceof GatewayError && error.status < 500 ? `Not ${what}: ${error.message}` : messageOf(error)

/**
 * The held funds section of a payment with a `hold`.
 *
 * @param {{ api: import("./api.js").Api, config: any }} context
 * @param {{ payment: any, refresh: () => void }} state
 */
export function holdSection(context, state) {
  const { api, config } = context
  const { payment, refresh } = state
  const hold = payment.hold
  const now = Date.now() / 1000
  const of = (/** @type {bigint} */ value) => formatAmount({ ...payment.amount, value: value.toString() })
  const asset = payment.option?.asset ?? null
  const tokens = (/** @type {bigint} */ value) => asset === null ? null : ` (${tokenAmount(config, asset, value.toString(), false)})`
  const operations = /** @type {ReadonlyArray<HoldOperation>} */ (hold.operations)
  const held = payment.status === "authorized"
  const deadline = h("span", { class: "stack" }, time(hold.captureBefore),
    held ? h("span", { class: "muted" }, now < hold.captureBefore ? `${timeLeft(hold.captureBefore, now)} left` : "Passed") : null)

  if (!held && BigInt(hold.authorized) === 0n) {
    // Not paid into the escrow (yet, or ever): only the terms the buyer would authorize.
    return section("Held funds", details([
      ["Capture", "Manual: once the buyer pays, the funds wait in escrow until you capture them"],
      ["Capture by", deadline]
    ]))
  }

  const totals = holdTotals(payment)
  const stillHeld = BigInt(hold.authorized) - BigInt(hold.captured)
  const voiding = operations.some((op) => op.kind === "void" && isOpen(op))
  const open = held && !voiding && now < hold.captureBefore && totals.left > 0n
  const afterDeadline = hold.voidAtDeadline ? "What is still held goes back to the buyer automatically" : "The buyer can take back what is still held"

  return section("Held funds",
    holdBar(totals, of),
    details([
      ["Capture by", deadline],
      ["Authorized", [of(totals.paid), tokens(BigInt(hold.authorized))]],
      ["Captured", [formatAmount(hold.capturedAmount), tokens(BigInt(hold.captured))]],
      hold.released === null
        ? ["Still held", [of(totals.paid - totals.captured), tokens(stillHeld)]]
        : [hold.released === "voided" ? "Given back (voided)" : "Taken back by the buyer", [of(totals.released), tokens(stillHeld)]],
      held ? ["After the deadline", afterDeadline] : null
    ]),
    operations.length === 0 ? null : operationsTable(config, payment, operations),
    !held ? null
      : open ? actions(api, payment, totals.left, of, refresh)
      : h("p", { class: "muted hold-note" }, voiding
        ? "A void is under way: what is still held goes back to the buyer."
        : now >= hold.captureBefore
        ? `The capture deadline has passed. ${afterDeadline}.`
        : "Everything held is captured or being captured."))
}

/**
 * @param {any} config
 * @param {any} payment
 * @param {ReadonlyArray<HoldOperation>} operations
 */
function operationsTable(config, payment, operations) {
  const chainId = String(payment.option?.asset ?? "").split("/")[0] ?? ""
  return h("div", { class: "hold-table" }, h("h3", {}, "Captures and voids"),
    table("Captures and voids, oldest first", ["Requested", "Operation", "Amount", "Status", "Transaction"], operations.map((op) => [
    time(op.requestedAt),
    h("span", { class: "stack" },
      op.kind === "capture" ? "Capture" : "Void",
      op.requestedBy === "deadline" ? h("span", { class: "muted" }, "At the capture deadline") : null),
    h("span", { class: "stack" },
      formatAmount(/** @type {any} */ (op.value)),
      payment.option === null ? null : h("span", { class: "muted" }, tokenAmount(config, payment.option.asset, op.amount, false))),
    h("span", { class: "stack" },
      statusBadge(op.status),
      op.failure === null ? null : h("span", { class: "failure" }, op.failure)),
    op.txHash === null || chainId === "" ? "—" : transactionLink(config, chainId, op.txHash)
  ])))
}

/**
 * The capture form and the void button.
 *
 * @param {import("./api.js").Api} api
 * @param {any} payment
 * @param {bigint} left minor units free to capture
 * @param {(value: bigint) => string} of
 * @param {() => void} refresh
 */
function actions(api, payment, left, of, refresh) {
  const id = encodeURIComponent(payment.paymentId)
  const { decimals } = payment.amount.display
  const currency = String(payment.amount.unit).replace(/^iso4217\//, "")
  const problem = h("div", { class: "form-problem", id: "capture-problem" })
  const voidProblem = h("div", { class: "form-problem", id: "void-problem" })
  const amount = input("capture-amount", { inputmode: "decimal", autocomplete: "off", placeholder: toDecimal(left.toString(), decimals) })
  const submit = h("button", { type: "submit", class: "button primary" }, "Capture")
  const fail = (/** @type {string} */ text) => {
    amount.setAttribute("aria-invalid", "true")
    problem.replaceChildren(alertBox(text))
    amount.focus()
  }
  const capture = async () => {
    problem.replaceChildren()
    amount.removeAttribute("aria-invalid")
    const text = amount.value.trim()
    const value = text === "" ? left : minorUnits(text, decimals)
    if (value === null) return fail(decimals === 0 ? "Enter a whole amount, like 500." : `Enter an amount with at most ${decimals} decimals, like ${toDecimal("500", decimals)}.`)
    if (value <= 0n) return fail("Enter an amount more than zero, or leave it empty to capture all that is left.")
    if (value > left) return fail(`At most ${of(left)} is left to capture.`)
    await busy(submit, async () => {
      try {
        // All that is left is asked without an amount: the service knows it exactly.
        await api.post(`/v1/payments/${id}/capture`, text === "" ? {} : { amount: { unit: payment.amount.unit, value: value.toString() } })
        announce(`Capture of ${of(value)} requested. It is sent on chain in a moment.`)
        refresh()
      } catch (error) {
        problem.replaceChildren(alertBox(refused("captured")(error)))
      }
    })
  }
  const form = h("form", {
    class: "form capture-form",
    novalidate: true,
    onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault()
      void capture()
    }
  },
  field(`Amount to capture (${currency})`, amount, `${of(left)} is left to capture. Leave it empty to capture all of it.`),
  problem,
  h("div", { class: "filter-actions" }, submit))

  const voidButton = actionButton({
    label: "Void…",
    className: "secondary danger-outline",
    problem: voidProblem,
    describe: refused("voided"),
    confirm: {
      title: `Give ${of(left)} back to the buyer?`,
      text: left === BigInt(payment.amount.value)
        ? "Nothing of this payment is captured: all of it goes back to the buyer and the payment ends as voided. This cannot be undone."
        : `What is not captured goes back to the buyer; what is captured (or being captured) stays yours. Nothing more can be captured. This cannot be undone.`,
      confirm: `Void ${of(left)}`,
      danger: true
    },
    action: async () => {
      await api.post(`/v1/payments/${id}/void`)
      announce("Void requested. It is sent on chain in a moment.")
      refresh()
    }
  })
  return h("div", { class: "hold-actions" },
    form,
    h("div", { class: "void-row" }, h("p", { class: "muted" }, `Or give the ${of(left)} left back to the buyer.`), voidButton), voidProblem)
}
