/**
 * A browser wallet for tests: an EIP-1193 provider injected into the page (announced through
 * EIP-6963, optionally also as `window.ethereum`) whose requests are answered in Node by a viem
 * local account on the test's anvil chain. It starts on another chain (mainnet) so that the page
 * has to ask `wallet_switchEthereumChain`, records every request, and can decline any method
 * like a user would (EIP-1193 error 4001). Reads (`eth_call`, `eth_getTransactionReceipt`) are
 * passed to the node.
 */
import type { Page } from "playwright-core"
import { createWalletClient, defineChain, type Hex, http, isAddressEqual } from "viem"
import { privateKeyToAccount } from "viem/accounts"

/** An EIP-1193 request as the page sent it. */
export interface WalletCall {
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

type Answer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }

/** How the provider shows itself to the page. */
export interface InjectOptions {
  /** Announce through EIP-6963; default true. */
  readonly announce?: boolean
  /** Also set `window.ethereum`; default false. */
  readonly legacy?: boolean
}

/** What the wallet's name and icon are in the page. */
export const testWalletName = "Test Wallet"

const icon = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\"><rect width=\"32\" height=\"32\" rx=\"8\" fill=\"#f97316\"/><circle cx=\"16\" cy=\"16\" r=\"7\" fill=\"#fff\"/></svg>"
)}`

// Runs in every frame of the page before its scripts; only the top window gets the wallet.
const providerScript = (options: { name: string; icon: string; announce: boolean; legacy: boolean }) => {
  // Runs in the browser: `globalThis` is the frame's window.
  const page = globalThis as any
  if (page.top !== page) return
  const bridge = page.__paygateTestWallet as (method: string, params: unknown) => Promise<any>
  const provider = {
    isTestWallet: true,
    request: async (args: { method: string; params?: unknown }) => {
      const answer = await bridge(args.method, args.params ?? [])
      if (answer.error !== undefined) {
        const error = new Error(answer.error.message) as Error & { code?: number }
        error.code = answer.error.code
        throw error
      }
      return answer.result
    },
    on: () => provider,
    removeListener: () => provider
  }
  const info = Object.freeze({ uuid: "6a0f1d52-3d43-4d6b-9d2b-3f2a6a4cf0b1", name: options.name, icon: options.icon, rdns: "test.paygate.wallet" })
  const announce = () =>
    page.dispatchEvent(new page.CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }))
  if (options.announce) {
    page.addEventListener("eip6963:requestProvider", announce)
    announce()
  }
  if (options.legacy) page.ethereum = provider
}

/** The wallet of one test: one anvil account, answering in Node. */
export class TestWallet {
  /** Every request the page made, in order. */
  readonly calls: Array<WalletCall> = []
  /** Methods answered with 4001 (the user declines). */
  readonly declining = new Set<string>()
  private readonly holds = new Map<string, { readonly reached: () => void; readonly released: Promise<void> }>()
  private currentChainId = 1
  private readonly account
  private readonly client
  private readonly chain: { readonly chainId: number; readonly rpcUrl: string }

  constructor(privateKey: Hex, chain: { readonly chainId: number; readonly rpcUrl: string }) {
    this.chain = chain
    this.account = privateKeyToAccount(privateKey)
    const anvil = defineChain({
      id: chain.chainId,
      name: "Anvil",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } }
    })
    this.client = createWalletClient({ account: this.account, chain: anvil, transport: http(chain.rpcUrl) })
  }

  /** The account's address. */
  get address() {
    return this.account.address
  }

  /** The requests of one method. */
  callsOf(method: string) {
    return this.calls.filter((call) => call.method === method)
  }

  /**
   * Holds the next request of `method` (as a wallet showing its prompt): `reached` settles when
   * the page has asked, the wallet answers once `release` is called.
   */
  hold(method: string) {
    let reached!: () => void
    let release!: () => void
    const asked = new Promise<void>((resolve) => (reached = resolve))
    const released = new Promise<void>((resolve) => (release = resolve))
    this.holds.set(method, { reached, released })
    return { reached: asked, release }
  }

  /** Puts the wallet into the page (before it loads). */
  async install(page: Page, options: InjectOptions = {}) {
    await page.exposeFunction("__paygateTestWallet", (method: string, params: unknown) => this.answer(method, params))
    await page.addInitScript(providerScript, {
      name: testWalletName,
      icon,
      announce: options.announce ?? true,
      legacy: options.legacy ?? false
    })
  }

  private async answer(method: string, params: unknown): Promise<Answer> {
    const list = Array.isArray(params) ? params : []
    this.calls.push({ method, params: list })
    const hold = this.holds.get(method)
    if (hold !== undefined) {
      this.holds.delete(method)
      hold.reached()
      await hold.released
    }
    if (this.declining.has(method)) return { error: { code: 4001, message: "User rejected the request." } }
    try {
      return { result: await this.handle(method, list) }
    } catch (error) {
      const code = (error as { code?: unknown }).code
      return { error: { code: typeof code === "number" ? code : -32603, message: error instanceof Error ? error.message : String(error) } }
    }
  }

  private async handle(method: string, params: ReadonlyArray<any>): Promise<unknown> {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return [this.account.address]
      case "eth_chainId":
        return `0x${this.currentChainId.toString(16)}`
      case "wallet_switchEthereumChain": {
        const wanted = Number(BigInt(params[0]?.chainId))
        if (wanted !== this.chain.chainId && wanted !== 1) throw Object.assign(new Error("Unrecognized chain."), { code: 4902 })
        this.currentChainId = wanted
        return null
      }
      case "eth_signTypedData_v4": {
        this.expectOwnAddress(params[0])
        this.expectOnChain()
        const typed = JSON.parse(params[1])
        const { EIP712Domain: _domain, ...types } = typed.types
        return await this.account.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message })
      }
      case "eth_sendTransaction": {
        const tx = params[0] ?? {}
        this.expectOwnAddress(tx.from)
        this.expectOnChain()
        return await this.client.sendTransaction({
          to: tx.to,
          data: tx.data,
          value: tx.value === undefined ? 0n : BigInt(tx.value),
          ...(tx.gas === undefined ? {} : { gas: BigInt(tx.gas) })
        })
      }
      // Reads a page makes through the wallet (an allowance, a receipt) go to the node, as a wallet's do.
      case "eth_call":
      case "eth_getTransactionReceipt":
        return await this.client.request({ method, params } as never)
      default:
        throw Object.assign(new Error(`The test wallet does not support ${method}.`), { code: 4200 })
    }
  }

  private expectOwnAddress(address: unknown) {
    if (typeof address !== "string" || !isAddressEqual(address as Hex, this.account.address)) {
      throw Object.assign(new Error("Unknown account."), { code: 4100 })
    }
  }

  private expectOnChain() {
    if (this.currentChainId !== this.chain.chainId) throw Object.assign(new Error("Wrong network."), { code: 4901 })
  }
}
