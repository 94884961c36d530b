// @ts-check
/**
 * Browser wallets: discovery (EIP-6963, with the legacy `window.ethereum` as a fallback) and the
 * EIP-1193 calls the checkout makes.
 *
 * @module
 */

/** @typedef {{ request(args: { method: string, params?: unknown }): Promise<unknown> }} Eip1193Provider */
/** @typedef {{ uuid: string, name: string, icon: string, rdns: string }} WalletInfo */
/** @typedef {{ info: WalletInfo, provider: Eip1193Provider }} Wallet */
/** @typedef {{ chain_id: string, method: string, params: ReadonlyArray<unknown> }} WalletRpc */

/** What the wallet answered instead of a result; `rejected` when the user declined. */
export class WalletError extends Error {
  /**
   * @param {string} message
   * @param {{ rejected?: boolean }} [options]
   */
  constructor(message, options = {}) {
    super(message)
    this.name = "WalletError"
    this.rejected = options.rejected === true
  }
}

/** EIP-1193: the user rejected the request. */
const userRejected = 4001
/** EIP-3326: the wallet does not know the chain. */
const unknownChain = 4902

/** The methods the gateway's actions may ask for; nothing else is passed to a wallet. */
const allowedMethods = new Set(["eth_signTypedData_v4", "eth_sendTransaction"])

/**
 * @param {unknown} value
 * @returns {value is Eip1193Provider}
 */
function isProvider(value) {
  return typeof value === "object" && value !== null && typeof (/** @type {any} */ (value).request) === "function"
}

/**
 * Discovers wallets: every EIP-6963 announcement now and later (reported through `onChange`);
 * without any, the injected `window.ethereum`.
 *
 * @param {(wallets: ReadonlyArray<Wallet>) => void} onChange
 * @returns {{ wallets: () => ReadonlyArray<Wallet>, rescan: () => void }}
 */
export function discoverWallets(onChange) {
  /** @type {Map<string, Wallet>} */
  const announced = new Map()
  const wallets = () => {
    if (announced.size > 0) return [...announced.values()]
    const injected = /** @type {any} */ (window).ethereum
    return isProvider(injected) ? [{ info: { uuid: "injected", name: "Browser wallet", icon: "", rdns: "" }, provider: injected }] : []
  }
  window.addEventListener("eip6963:announceProvider", (event) => {
    const detail = /** @type {any} */ (event).detail
    const info = detail?.info
    if (!isProvider(detail?.provider) || typeof info?.uuid !== "string" || typeof info?.name !== "string") return
    const wallet = {
      info: { uuid: info.uuid, name: info.name, icon: typeof info.icon === "string" ? info.icon : "", rdns: String(info.rdns ?? "") },
      provider: detail.provider
    }
    // One entry per wallet even if it announces again.
    announced.set(wallet.info.rdns || wallet.info.uuid, wallet)
    onChange(wallets())
  })
  const rescan = () => window.dispatchEvent(new Event("eip6963:requestProvider"))
  rescan()
  return { wallets, rescan }
}

/**
 * @param {unknown} error
 * @returns {number | undefined}
 */
function errorCode(error) {
  const code = /** @type {any} */ (error)?.code
  return typeof code === "number" ? code : undefined
}

/**
 * One EIP-1193 request; a wallet error becomes a {@link WalletError}.
 *
 * @param {Eip1193Provider} provider
 * @param {string} method
 * @param {unknown} [params]
 * @returns {Promise<unknown>}
 */
export async function walletRequest(provider, method, params) {
  try {
    return await provider.request(params === undefined ? { method } : { method, params })
  } catch (error) {
    if (errorCode(error) === userRejected) throw new WalletError("You declined the request in your wallet.", { rejected: true })
    const message = /** @type {any} */ (error)?.message
    throw new WalletError(`Your wallet reported an error${typeof message === "string" && message !== "" ? `: ${message}` : "."}`)
  }
}

/**
 * Asks the wallet for its accounts (opens its connection prompt).
 *
 * @param {Eip1193Provider} provider
 * @returns {Promise<ReadonlyArray<string>>}
 */
export async function connect(provider) {
  const accounts = await walletRequest(provider, "eth_requestAccounts")
  if (!Array.isArray(accounts)) throw new WalletError("Your wallet answered without accounts.")
  return accounts.filter((account) => typeof account === "string" && /^0x[0-9a-fA-F]{40}$/.test(account))
}

/**
 * The wallet's current chain as a CAIP-2 id.
 *
 * @param {Eip1193Provider} provider
 * @returns {Promise<string | undefined>}
 */
export async function currentChain(provider) {
  const hex = await walletRequest(provider, "eth_chainId")
  return typeof hex === "string" && /^0x[0-9a-fA-F]+$/.test(hex) ? `eip155:${BigInt(hex)}` : undefined
}

/**
 * Switches the wallet to a CAIP-2 chain when it is on another one.
 *
 * @param {Eip1193Provider} provider
 * @param {string} chainId
 * @param {string} networkName
 */
export async function ensureChain(provider, chainId, networkName) {
  const reference = /^eip155:([0-9]+)$/.exec(chainId)?.[1]
  if (reference === undefined) throw new WalletError(`This page cannot pay on ${chainId}.`)
  if ((await currentChain(provider)) === chainId) return
  try {
    await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: `0x${BigInt(reference).toString(16)}` }] })
  } catch (error) {
    if (errorCode(error) === userRejected) throw new WalletError("You declined to switch networks in your wallet.", { rejected: true })
    if (errorCode(error) === unknownChain) {
      throw new WalletError(`Your wallet does not know the network ${networkName}. Add it in your wallet, then try again.`)
    }
    throw new WalletError(`Your wallet could not switch to ${networkName}.`)
  }
}

/**
 * Runs one `walletRpc` action of the gateway on its chain and answers its result (a signature or a
 * transaction hash).
 *
 * @param {Eip1193Provider} provider
 * @param {WalletRpc} action
 * @param {string} networkName
 * @returns {Promise<string>}
 */
export async function runWalletRpc(provider, action, networkName) {
  if (!allowedMethods.has(action.method)) throw new WalletError(`This page does not run ${action.method} actions.`)
  await ensureChain(provider, action.chain_id, networkName)
  const result = await walletRequest(provider, action.method, action.params)
  if (typeof result !== "string" || !/^0x[0-9a-fA-F]+$/.test(result)) throw new WalletError("Your wallet gave an unexpected answer.")
  return result
}
