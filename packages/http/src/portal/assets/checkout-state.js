// @ts-check
/**
 * What the checkout's modules share: the page's configuration, the gateway, the page's three
 * regions, the mutable state of the visit, and the moves that `checkout.js` wires up. It imports
 * none of the other checkout modules, so every one of them can import it.
 *
 * @module
 */
import { byId, pageConfig, randomId } from "./dom.js"
import { createGateway } from "./gateway.js"

/** @typedef {import("./format.js").Amount} Amount */
/** @typedef {import("./wallet.js").Wallet} Wallet */
/** @typedef {import("./wallet.js").WalletRpc} WalletRpc */
/** @typedef {"requires_action" | "processing" | "succeeded" | "failed" | "expired" | "cancelled"} Status */
/** @typedef {{ status: Status, amount: Amount, expiresAt: number, merchant: { name: string, iconUrl?: string | null } }} PaymentInfo */
/** @typedef {{ type: "walletRpc", data: WalletRpc } | { type: "build", data: { data: string } }} Action */
/** @typedef {{ id: string, account: string, amount: Amount, etaS: number, actions: ReadonlyArray<Action>, collectData?: { url: string } | null, expiresAt?: number | null }} PaymentOption */

/** @typedef {import("./deposit.js").DepositOption} DepositOption */
/** @typedef {import("./deposit.js").Transfer} Transfer */
/** @typedef {{ transaction: { chainId: string, hash: string, explorerUrl: string | null } | null, transfers: ReadonlyArray<Transfer>, paid: { amount: Amount, paidAt: number } | null }} Receipt */
/** @typedef {"connect" | "pay" | "cancel" | "deposit"} Step Where a step failed (for `handleError`). */

/** @typedef {{ captureBefore: number, voidAtDeadline: boolean, status: string }} CheckoutHold A held payment (`PortalPages.ts`). */
/**
 * @typedef {{ paymentId: string, appId: string, chains: string[], redirect: { successUrl: string, errorUrl: string } | null, mode: "live" | "sandbox",
 *   referenceId: string, deposits: "offered" | "needsData" | "none", tokenAmounts: ReadonlyArray<{ amount: Amount, floating: boolean }>,
 *   support: { email: string | null, site: string | null }, hold: CheckoutHold | null }} CheckoutConfig
 */
export const config = /** @type {CheckoutConfig} */ (pageConfig())
export const paymentId = config.paymentId
export const gateway = createGateway({ appId: config.appId, clientId: randomId() })
/** Whether the page offers paying from an exchange or another wallet (a chain has a deposit factory). */
export const depositsOffered = config.deposits === "offered"
/** Unix seconds on the service's clock. */
export const nowSeconds = gateway.now
export const summary = byId("summary", HTMLElement)
export const footer = byId("footer", HTMLElement)
export const main = byId("view", HTMLElement)

/** The visit so far, read and changed by every module. */
export const state = {
  /** @type {PaymentInfo | null} */
  info: null,
  /** @type {Wallet | null} */
  wallet: null,
  /** @type {ReadonlyArray<string>} */
  accounts: [],
  /** @type {ReadonlyArray<PaymentOption>} */
  options: [],
  /** Which option is chosen: by account and token (an option's id changes when it is re-quoted). */
  selectedKey: "",
  busy: false,
  finished: false,
  /** A re-quote is under way (of the wallet's options or of the deposit). */
  requoting: false,
  /** @type {Amount | null} The amount of the option the buyer paid with in this visit. */
  paidAmount: null,
  /** How the buyer pays: through a browser wallet, or by sending to a deposit address. */
  path: /** @type {"wallet" | "deposit"} */ ("wallet"),
  /** @type {ReadonlyArray<DepositOption>} */
  depositOptions: []
}

const notWired = () => {
  throw new Error("The checkout's moves are not wired yet.")
}

/**
 * The moves that lead back into every view (a failure, a reload, the cancel view, the other path).
 * Modules below `checkout.js` call them through here, as importing them would close an import
 * circle; `checkout.js` sets them before the page starts.
 *
 * @type {{
 *   back: (message?: string) => void,
 *   reload: () => Promise<void>,
 *   handleError: (error: unknown, step: Step) => void,
 *   showCancel: () => void,
 *   showConnect: (message?: string, options?: { focus?: boolean }) => void,
 *   pay: () => Promise<void>
 * }}
 */
export const moves = { back: notWired, reload: notWired, handleError: notWired, showCancel: notWired, showConnect: notWired, pay: notWired }

/** @param {PaymentOption} option */
export const keyOf = (option) => `${option.account}|${option.amount.unit}`
/** @param {Status} status */
export const isFinal = (status) => status !== "requires_action" && status !== "processing"
/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
export const merchantName = () => state.info?.merchant.name ?? "the merchant"

/** The payment's time is up (the service then reports it expired; asking it anything else would be refused). */
export const timeIsUp = () => state.info !== null && state.info.status === "requires_action" && nowSeconds() >= state.info.expiresAt
