// @ts-check
/**
 * View pieces the hosted pages' scripts share: a message, the merchant's avatar, a token's icons,
 * the wallets to connect (or why there are none), the busy view shown while a wallet or the service works,
 * the list of wallet steps when the wallet asks more than once, and the view of a problem the page cannot get past.
 *
 * @module
 */
import { byId, h, icon, showView } from "./dom.js"

/** @typedef {import("./format.js").AmountDisplay} AmountDisplay */
/** @typedef {import("./wallet.js").Wallet} Wallet */

/**
 * A message for the buyer, announced by screen readers: a problem, or (`info`) news.
 *
 * @param {string | undefined} message
 * @param {"error" | "info"} [tone]
 */
export function alertBox(message, tone = "error") {
  return message === undefined ? null : h("div", { class: `alert ${tone}`, role: "alert" }, message)
}

/**
 * The merchant's icon, or its initial when it has none.
 *
 * @param {{ name: string, iconUrl?: string | null }} merchant
 */
export function merchantAvatar(merchant) {
  return icon(merchant.iconUrl, "merchant-icon") ??
    h("span", { class: "merchant-icon avatar", "aria-hidden": "true" }, (merchant.name.trim()[0] ?? "?").toUpperCase())
}

/**
 * A token's icon (or its symbol's initial) with its network's icon on its corner.
 *
 * @param {AmountDisplay} display
 */
export function tokenIcons(display) {
  return h("span", { class: "option-icons" },
    icon(display.iconUrl, "token-icon", display.assetName) ?? h("span", { class: "token-icon avatar", "aria-hidden": "true" }, display.assetSymbol.slice(0, 1)),
    icon(display.networkIconUrl, "network-icon", display.networkName ?? ""))
}

/**
 * The wallets found in the browser, each a button that connects it.
 *
 * @param {ReadonlyArray<Wallet>} wallets
 * @param {(wallet: Wallet) => void} choose
 */
export function walletList(wallets, choose) {
  return h("ul", { class: "wallets", "aria-label": "Wallets" }, wallets.map((w) =>
    h("li", {}, h("button", { type: "button", class: "wallet-button", onclick: () => choose(w) }, icon(w.info.icon, "wallet-icon"), h("span", {}, w.info.name)))
  ))
}

/**
 * No wallet is the usual case on a phone: said calmly, with a way to look again.
 *
 * @param {() => void} lookAgain
 */
export function noWalletNote(lookAgain) {
  return h("p", { class: "muted no-wallet" },
    "No browser wallet was found in this browser. On a computer, install a wallet extension; on a phone, open this page in your wallet app. ",
    h("button", { type: "button", class: "button link inline", onclick: lookAgain }, "Look again"))
}

/**
 * A view of work under way (view `name`): a spinner, its title, the wallet's steps when it asks
 * more than once, and what happens; marked busy for screen readers.
 *
 * @param {string} name
 * @param {string} title
 * @param {string} text
 * @param {HTMLElement} [steps]
 */
export function showBusy(name, title, text, steps) {
  showView(name, [h("span", { class: "spinner large", "aria-hidden": "true" }), h("h1", {}, title), steps ?? null, h("p", { class: "muted" }, text)])
  byId("view", HTMLElement).setAttribute("aria-busy", "true")
}

/**
 * Every step the wallet asks for, the current one marked and the earlier ones done, so the buyer
 * sees why the wallet asks more than once.
 *
 * @param {ReadonlyArray<string>} labels
 * @param {number} current
 */
export function walletSteps(labels, current) {
  return h("ol", { class: "wallet-steps" }, labels.map((label, i) =>
    h("li", { class: i === current ? "current" : null, "aria-current": i === current ? "step" : null },
      label, i < current ? h("span", { class: "step-done" }, " · done") : null)))
}

/**
 * What the page shows when it cannot go on: the problem, and a reload to try again.
 *
 * @param {string} message
 */
export function showError(message) {
  showView("error", [
    h("h1", {}, "Something went wrong"),
    h("p", {}, message),
    h("button", { type: "button", class: "button secondary", onclick: () => window.location.reload() }, "Try again")
  ])
}
