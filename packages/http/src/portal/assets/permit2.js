// @ts-check
/**
 * Letting Permit2 move a token (ERC-20 `approve`), as the pages ask a wallet for it: what an
 * approve is, said for the buyer; the token's allowance read through the wallet; the approvals
 * still needed; waiting until one is mined. Permit2 moves nothing without a permit the buyer signs,
 * so one approval serves every later payment.
 *
 * @module
 */
import { walletRequest, WalletError } from "./wallet.js"

/** @typedef {import("./wallet.js").Eip1193Provider} Eip1193Provider */
/** @typedef {import("./wallet.js").WalletRpc} WalletRpc */

const approveSelector = "0x095ea7b3"
const allowanceSelector = "0xdd62ed3e"
/** What an approval allows Permit2, like the checkout's: everything, so later payments need a signature only. */
const unlimited = (1n << 256n) - 1n
const receiptPollMs = 1000
/** Past this, the page stops waiting for an approval to be mined and says so. */
const receiptWaitMs = 10 * 60_000

/**
 * An address or number as one 32-byte ABI word (hex, no prefix).
 *
 * @param {string | bigint} value
 */
const word = (value) => (typeof value === "bigint" ? value.toString(16) : value.replace(/^0x/, "").toLowerCase()).padStart(64, "0")

/**
 * What an ERC-20 `approve` action (selector 0x095ea7b3) allows: "zero" (a reset), "some", or null
 * when the action is not an approve.
 *
 * @param {WalletRpc} action
 * @returns {"zero" | "some" | null}
 */
export function approveKind(action) {
  const tx = /** @type {{ data?: unknown }} */ (action.params[0] ?? {})
  if (typeof tx.data !== "string" || !tx.data.toLowerCase().startsWith(approveSelector)) return null
  return /^0*$/.test(tx.data.slice(10 + 64)) ? "zero" : "some"
}

/**
 * An approve as the buyer reads it: the view's title, its short label in the list of steps, and
 * why the wallet asks for it.
 *
 * @param {"zero" | "some"} kind
 * @param {string} symbol
 * @param {string} walletName
 * @returns {{ title: string, label: string, why: string }}
 */
export function describeApproval(kind, symbol, walletName) {
  if (kind === "zero") {
    return {
      title: `Reset your ${symbol} allowance`,
      label: `Reset the ${symbol} allowance to zero (a transaction)`,
      why: `${symbol} only changes an allowance through zero. Confirm the transaction in ${walletName} that sets it to zero. Nothing is paid yet; you pay its network fee.`
    }
  }
  return {
    title: `Allow ${symbol} once`,
    label: `Allow ${symbol} once (a transaction, only the first time)`,
    why: `${symbol} cannot be paid with a signature alone: confirm the transaction in ${walletName} that lets the Permit2 contract move ${symbol} for the payments you sign. Nothing is paid yet; you pay its network fee, once.`
  }
}

/**
 * The contract of an ERC-20 token's CAIP-19 id (`eip155:1/erc20:0x…`), or undefined.
 *
 * @param {string} assetId
 */
export function tokenAddress(assetId) {
  return /^eip155:[0-9]+\/erc20:(0x[0-9a-fA-F]{40})$/.exec(assetId)?.[1]
}

/**
 * How much of `token` `owner` lets `spender` move, read through the wallet on its current chain.
 *
 * @param {Eip1193Provider} provider
 * @param {string} token
 * @param {string} owner
 * @param {string} spender
 */
export async function readAllowance(provider, token, owner, spender) {
  const result = await walletRequest(provider, "eth_call", [{ to: token, data: `${allowanceSelector}${word(owner)}${word(spender)}` }, "latest"])
  if (typeof result !== "string" || !/^0x[0-9a-fA-F]*$/.test(result)) throw new WalletError("Your wallet could not read your token allowance.")
  return result === "0x" ? 0n : BigInt(result)
}

/**
 * The approve transactions `owner` must send before Permit2 may move `needed`, as the gateway's
 * Permit2 options ask for them: none when the allowance covers it, else unlimited, through zero when
 * the allowance is not zero (USDT and tokens like it refuse any other change).
 *
 * @param {{ chainId: string, owner: string, token: string, spender: string }} of
 * @param {bigint} allowance
 * @param {bigint} needed
 * @returns {WalletRpc[]}
 */
export function approvalsNeeded(of, allowance, needed) {
  if (allowance >= needed) return []
  const approve = (/** @type {bigint} */ value) => ({
    chain_id: of.chainId,
    method: "eth_sendTransaction",
    params: [{ from: of.owner, to: of.token, value: "0x0", data: `${approveSelector}${word(of.spender)}${word(value)}` }]
  })
  return allowance === 0n ? [approve(unlimited)] : [approve(0n), approve(unlimited)]
}

/**
 * Waits until the transaction `hash` is mined (asked through the wallet); throws when it failed or
 * is still not mined after ten minutes.
 *
 * @param {Eip1193Provider} provider
 * @param {string} hash
 */
export async function waitForReceipt(provider, hash) {
  const until = Date.now() + receiptWaitMs
  while (Date.now() < until) {
    const receipt = /** @type {{ status?: unknown } | null} */ (await walletRequest(provider, "eth_getTransactionReceipt", [hash]))
    if (receipt?.status === "0x1") return
    if (receipt?.status === "0x0") throw new WalletError("Your approval failed on the network. Try again.")
    await new Promise((resolve) => setTimeout(resolve, receiptPollMs))
  }
  throw new WalletError("Your approval is not confirmed yet. Check it in your wallet, then try again.")
}
