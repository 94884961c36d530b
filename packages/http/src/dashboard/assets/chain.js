// @ts-check
/**
 * On-chain facts for people: a payment's token amount with the configured token's symbol and
 * network, account addresses out of CAIP-10 ids, and block explorer links when the network has
 * an explorer.
 *
 * @module
 */
import { h } from "./dom.js"
import { formatAmount, shortAddress } from "./format.js"
import { copyButton } from "./ui.js"

/** @typedef {import("./context.js").DashboardConfig} DashboardConfig */

/**
 * `value` base units of CAIP-19 `assetId` as "12.50 TUSDC on Anvil (local)" (without the network
 * when `withNetwork` is false), or the raw value and asset when the token is not configured (any more).
 *
 * @param {DashboardConfig} config
 * @param {string} assetId
 * @param {string} value
 * @param {boolean} [withNetwork]
 */
export function tokenAmount(config, assetId, value, withNetwork = true) {
  const asset = config.assets.find((a) => a.assetId.toLowerCase() === assetId.toLowerCase())
  if (asset === undefined) return `${value} (base units of ${assetId})`
  const amount = formatAmount({ unit: assetId, value, display: { assetName: asset.name, assetSymbol: asset.symbol, decimals: asset.decimals } })
  return withNetwork ? `${amount} on ${asset.networkName}` : amount
}

/**
 * The address of a CAIP-10 account id (`eip155:1:0xabc…` → `0xabc…`).
 *
 * @param {string} account
 */
export function addressOf(account) {
  return account.split(":").at(-1) ?? account
}

/**
 * A transaction hash, linked to its explorer page when the chain has an explorer, with a copy button.
 *
 * @param {DashboardConfig} config
 * @param {string} chainId CAIP-2
 * @param {string} hash
 * @param {string | null} [explorerUrl] the link the API gave, if any
 */
export function transactionLink(config, chainId, hash, explorerUrl) {
  const explorer = config.networks.find((n) => n.chainId === chainId)?.explorerUrl ?? null
  const url = explorerUrl ?? (explorer === null ? null : `${explorer.replace(/\/+$/, "")}/tx/${hash}`)
  const label = shortAddress(hash)
  return h(
    "span",
    { class: "copyable" },
    url === null
      ? h("code", { class: "id", title: hash }, label)
      : h("a", { href: url, target: "_blank", rel: "noopener noreferrer", class: "id", title: hash }, label, h("span", { class: "visually-hidden" }, " (opens the block explorer)")),
    copyButton(hash, "transaction hash")
  )
}
