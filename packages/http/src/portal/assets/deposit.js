// @ts-check
/**
 * The checkout's view for buyers without a browser wallet: what to send from an exchange or any
 * other wallet (the exact token amount, the network, the payment's own deposit address), a QR code
 * of the EIP-681 transfer request that a mobile wallet scans, copy buttons, and the warning about
 * networks and the deadline. The flow (asking for the options, following the payment) is in
 * `checkout-deposit.js`.
 *
 * @module
 */
import { h, icon } from "./dom.js"
import { formatAmount, formatClock, shortAddress, toDecimal } from "./format.js"

/** @typedef {import("./format.js").Amount} Amount */
/**
 * A deposit option (`POST /v1/gateway/payment/{id}/deposit`): send `amount` of `asset` on
 * `network` to `address`; `uri` is the same transfer as an EIP-681 request.
 *
 * @typedef {{ id: string, kind: "deposit", network: string, asset: string, address: string, amount: Amount, uri: string, expiresAt: number | null }} DepositOption
 */
/**
 * A transfer recorded against the payment (`transfers` of `GET {checkout}/{paymentId}/receipt`):
 * `shortfall` and `refundable` in the token's base units.
 *
 * @typedef {{ outcome: "paid" | "overpaid" | "underpaid" | "late", amount: Amount, shortfall: string, refundable: string, hash: string, explorerUrl: string | null }} Transfer
 */

/** How long "Copied" stays. */
const copiedMs = 2500

/**
 * The amount as a person types it into an exchange's withdrawal form: the exact decimal, with at
 * least two decimals and no trailing zeros beyond ("12.50", "0.000001").
 *
 * @param {Amount} amount
 * @returns {string}
 */
export function typedAmount(amount) {
  const decimal = toDecimal(amount.value, amount.display.decimals)
  const [whole, fraction = ""] = decimal.split(".")
  const kept = fraction.replace(/0+$/, "").padEnd(Math.min(2, fraction.length), "0")
  return kept === "" ? `${whole}` : `${whole}.${kept}`
}

/**
 * @param {DepositOption} option
 * @returns {string}
 */
export function networkOf(option) {
  return option.amount.display.networkName ?? option.network
}

/**
 * A button that copies `text`. It says "Copied" for a moment (announced by screen readers too);
 * where the browser refuses, the text is selected so the buyer can copy it themselves.
 *
 * @param {string} label Visible label, e.g. "Copy amount".
 * @param {string} what What is copied, for the announcement, e.g. "Amount".
 * @param {string} text
 * @param {HTMLElement} source The element that shows `text` (selected when copying is refused).
 */
export function copyButton(label, what, text, source) {
  const status = h("span", { class: "visually-hidden", role: "status" })
  const button = h("button", { type: "button", class: "button secondary small copy" }, label)
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  const say = (/** @type {string} */ shown, /** @type {string} */ announced) => {
    button.textContent = shown
    button.classList.add("done")
    status.textContent = announced
    clearTimeout(timer)
    timer = setTimeout(() => {
      button.textContent = label
      button.classList.remove("done")
      status.textContent = ""
    }, copiedMs)
  }
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text)
      say("Copied", `${what} copied`)
    } catch {
      window.getSelection()?.selectAllChildren(source)
      say("Selected", `${what} selected: copy it with your keyboard`)
    }
  })
  return h("span", { class: "copy-wrap" }, button, status)
}

/**
 * The network picker, when the payment can be paid on several networks (or in several tokens).
 *
 * @param {ReadonlyArray<DepositOption>} options
 * @param {string} selected The chosen option's token (CAIP-19).
 * @param {(option: DepositOption) => void} onSelect
 */
export function networkPicker(options, selected, onSelect) {
  if (options.length < 2) return null
  return h("fieldset", { class: "networks" },
    h("legend", {}, "Network you send on"),
    h("div", { class: "choices" }, options.map((option, index) => {
      const id = `network-${index}`
      const radio = h("input", { type: "radio", name: "network", id, value: option.asset, checked: option.asset === selected })
      radio.addEventListener("change", () => onSelect(option))
      return h("label", { class: "choice", for: id }, radio,
        icon(option.amount.display.networkIconUrl, "choice-icon", ""),
        `${networkOf(option)} · ${option.amount.display.assetSymbol}`)
    })))
}

/**
 * Whether the option pays in the network's own coin (ETH, POL), not a token.
 *
 * @param {DepositOption} option
 */
export function isCoin(option) {
  return option.asset.includes("/slip44:")
}

/**
 * What is lost when sent to the address: another network, another token and, when the address
 * takes tokens only, the network's own coin.
 *
 * @param {boolean} takesCoin
 */
function lostWarning(takesCoin) {
  return takesCoin
    ? "Anything sent on another network, or a token this payment does not take, is lost. This address is for this payment only."
    : "Tokens sent on another network, or another token, are lost. So is the network's own coin (such as ETH): this address takes tokens only, and is for this payment only."
}

/**
 * What to send for one option.
 *
 * @param {DepositOption} option
 * @param {{ qrUrl: string, deadline: number, now: number, takesCoin: boolean }} context `deadline`: Unix seconds (service clock);
 *   `takesCoin`: the address takes the network's own coin (an option pays in it).
 */
export function depositDetails(option, context) {
  const display = option.amount.display
  const network = networkOf(option)
  const amountText = formatAmount(option.amount)
  const amountValue = h("span", { class: "deposit-amount" }, amountText)
  // In groups of four, easier to check against what the exchange shows; copied as one word.
  const address = h("code", { class: "deposit-address" }, (option.address.match(/^0x.{0,4}|.{1,4}/g) ?? [option.address]).map((group) => h("span", {}, group)))
  const clock = formatClock(context.deadline, context.now)
  return [
    h("div", { class: "deposit-info" },
      h("dl", { class: "deposit-facts" },
        h("div", {},
          h("dt", {}, "Send exactly"),
          h("dd", { class: "deposit-row" },
            h("span", {}, amountValue, h("span", { class: "muted deposit-token" }, icon(display.iconUrl, "inline-icon", ""), display.assetName)),
            copyButton("Copy amount", "Amount", typedAmount(option.amount), amountValue))),
        h("div", {},
          h("dt", {}, "Network"),
          h("dd", { class: "deposit-network" }, icon(display.networkIconUrl, "inline-icon", ""), network)),
        h("div", {},
          h("dt", {}, "To this address"),
          h("dd", { class: "deposit-row" }, address, copyButton("Copy address", "Address", option.address, address)))),
      h("div", { class: "notice deposit-warning", role: "note" },
        h("p", { class: "deposit-warning-title" }, `Send only ${display.assetSymbol} on ${network}`),
        h("ul", {},
          h("li", {}, `Exactly ${amountText} must arrive. If your exchange takes its fee from the amount you enter, add the fee.`),
          h("li", {}, `It must arrive before ${clock}.`),
          h("li", {}, lostWarning(context.takesCoin))))),
    h("div", { class: "deposit-scan" },
      h("figure", { class: "deposit-qr" },
        h("img", {
          src: context.qrUrl,
          width: 232,
          height: 232,
          alt: `QR code of a transfer of ${amountText} on ${network} to ${option.address}`
        }),
        h("figcaption", { class: "muted" }, `Scan with a mobile wallet: it fills in the ${isCoin(option) ? "coin" : "token"}, network, address and amount.`)),
      option.uri.startsWith("ethereum:") ? h("a", { class: "button secondary", href: option.uri }, "Open in a wallet app") : null)
  ]
}

/**
 * What is still missing of the payment in the shown option's token after the underpaid transfers
 * that arrived (each later one judged against what was left, so the smallest shortfall is what is
 * left now), in base units; `null` when none arrived in that token.
 *
 * @param {ReadonlyArray<Transfer>} transfers
 * @param {Amount} asked the shown option's amount
 * @returns {{ received: bigint, missing: bigint } | null}
 */
export function stillMissing(transfers, asked) {
  const parts = transfers.filter((t) => t.outcome === "underpaid" && t.amount.unit === asked.unit)
  if (parts.length === 0) return null
  return {
    received: parts.reduce((sum, t) => sum + BigInt(t.amount.value), 0n),
    missing: parts.reduce((least, t) => (BigInt(t.shortfall) < least ? BigInt(t.shortfall) : least), BigInt(parts[0]?.shortfall ?? "0"))
  }
}

/**
 * The alert for transfers that arrived at the deposit address but were less than asked: they
 * count, and the rest completes the payment.
 *
 * @param {ReadonlyArray<Transfer>} transfers
 * @param {Amount} asked the shown option's amount
 * @param {string} merchant
 */
export function shortfallAlerts(transfers, asked, merchant) {
  const partial = stillMissing(transfers, asked)
  if (partial === null) return []
  const sent = formatAmount({ ...asked, value: partial.received.toString() })
  const missing = formatAmount({ ...asked, value: partial.missing.toString() })
  return [h("div", { class: "alert", role: "alert" },
    `${sent} arrived, ${missing} short of the amount. Send the remaining ${missing} to the same address to complete this ` +
      `payment, or ask ${merchant} to refund the ${sent}.`)]
}

/**
 * Notes for the outcome view on transfers that did not pay exactly: too much, too little, too late.
 *
 * @param {ReadonlyArray<Transfer>} transfers
 * @param {string} merchant
 */
export function transferNotes(transfers, merchant) {
  return transfers.flatMap((t) => {
    const sent = formatAmount(t.amount)
    switch (t.outcome) {
      case "overpaid":
        return [note(`You sent ${sent}, ${formatAmount({ ...t.amount, value: t.refundable })} more than asked. ${merchant} can refund the difference.`)]
      case "underpaid":
        // Not completed by the transfers after it (the payment was paid otherwise): it did not count.
        return [note(`${sent} arrived, less than asked, so it did not pay this payment. Ask ${merchant} to refund it.`)]
      case "late":
        return [note(`${sent} arrived after this payment had closed, so it did not pay it. Ask ${merchant} to refund it (transaction `,
          t.explorerUrl === null
            ? shortAddress(t.hash)
            : h("a", { href: t.explorerUrl, target: "_blank", rel: "noopener noreferrer" }, shortAddress(t.hash)),
          ").")]
      default:
        return []
    }
  })
}

/** @param {...(string | Node)} parts */
const note = (...parts) => h("p", { class: "alert info" }, ...parts)
