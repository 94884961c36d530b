/**
 * The hosted checkout paying TUSDT (no EIP-3009: pulled through Permit2) in Chromium with an
 * injected wallet: a buyer whose allowance to Permit2 falls short is told before paying that the
 * wallet asks for a one-time approval and then a signature, sees each step as the wallet asks for
 * it (the allowance reset first when it is not zero, as Tether requires), and reaches success.
 * Screenshots of the options and each step at 375 px and 1280 px go to artifacts/screenshots/.
 */
import { Chain } from "@paygate/adapters"
import type { Page } from "playwright-core"
import { createPublicClient, createWalletClient, decodeFunctionData, type Hex, http, maxUint256, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

const token = parseAbi([
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 value)"
])

describe("Hosted checkout paying TUSDT through Permit2 in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite({ usdt: true })

  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const mainText = (page: Page) => page.locator("main").innerText()
  /**
   * Holds the wallet's next `method` prompt, answers the `previous` one held, and waits until the
   * page shows the new step; answers the new hold.
   */
  const nextPrompt = async (page: Page, wallet: TestWallet, method: string, previous?: { readonly release: () => void }) => {
    const held = wallet.hold(method)
    previous?.release()
    await held.reached
    await view(page, "working")
    return held
  }
  /** The working view's list of wallet steps: each step's text, and whether it is the current one. */
  const steps = (page: Page) =>
    page.locator("ol.wallet-steps li").evaluateAll((items) =>
      items.map((item) => ({ text: (item.textContent ?? "").trim(), current: item.getAttribute("aria-current") === "step" })))
  const usdt = () => suite.world().chain.contracts.usdt as Hex
  const reader = () => createPublicClient({ transport: http(suite.world().chain.node.rpcUrl) })
  const allowance = (owner: Hex) =>
    reader().readContract({ address: usdt(), abi: token, functionName: "allowance", args: [owner, Chain.Permit2.permit2Address] })
  const approvedValue = (call: { readonly params: ReadonlyArray<any> }) => {
    const tx = call.params[0] as { to: Hex; data: Hex }
    expect(tx.to.toLowerCase()).toBe(usdt().toLowerCase())
    const decoded = decodeFunctionData({ abi: token, data: tx.data })
    expect(decoded.functionName).toBe("approve")
    expect((decoded.args[0] as string).toLowerCase()).toBe(Chain.Permit2.permit2Address.toLowerCase())
    return decoded.args[1] as bigint
  }

  /** Opens a new payment with the wallet of anvil account `index`, connected, on the options view with TUSDT chosen. */
  const openWithUsdt = async (index: number) => {
    const world = suite.world()
    const payment = await world.createPayment()
    const probe = await suite.open()
    const wallet = new TestWallet(Chain.anvilAccount(index).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
    await wallet.install(probe.page)
    await probe.page.goto(payment.gatewayUrl)
    await probe.page.getByRole("button", { name: testWalletName }).click()
    await view(probe.page, "options")
    const option = probe.page.locator("label.option", { hasText: "TUSDT" })
    await option.click()
    return { ...probe, payment, wallet, option }
  }

  it("a buyer with no allowance: told about the one-time approval, allows TUSDT once, then signs, and the payment succeeds", async () => {
    const probe = await openWithUsdt(3)
    const { page, wallet } = probe
    const buyer = wallet.address as Hex
    expect(await allowance(buyer)).toBe(0n)
    // Before paying: why the wallet will ask twice.
    expect(await probe.option.innerText()).toMatch(/12\.50 TUSDT[\s\S]*Your wallet first asks you to allow TUSDT once \(a transaction: you pay its network fee\), then to sign the payment\./)
    await shoot(page, "checkout-permit2-options")

    const approving = wallet.hold("eth_sendTransaction")
    await page.getByRole("button", { name: "Pay 12.50 TUSDT" }).click()
    await approving.reached
    await view(page, "working")
    const approveText = await mainText(page)
    expect(approveText).toMatch(/Allow TUSDT once[\s\S]*Step 1 of 2/)
    expect(approveText).toContain("Nothing is paid yet")
    expect(approveText).toContain("you pay its network fee")
    // Every step the wallet will ask for, the current one marked.
    expect(await steps(page)).toEqual([
      { text: "Allow TUSDT once (a transaction, only the first time)", current: true },
      { text: "Sign the payment of 12.50 TUSDT (no network fee)", current: false }
    ])
    await shoot(page, "checkout-permit2-approve")
    const signing = await nextPrompt(page, wallet, "eth_signTypedData_v4", approving)
    expect(await mainText(page)).toMatch(/Sign the payment[\s\S]*Step 2 of 2[\s\S]*12\.50 TUSDT[\s\S]*no network fee/)
    expect(await steps(page)).toEqual([
      { text: "Allow TUSDT once (a transaction, only the first time) · done", current: false },
      { text: "Sign the payment of 12.50 TUSDT (no network fee)", current: true }
    ])
    await shoot(page, "checkout-permit2-sign")
    signing.release()

    await view(page, "success", 120_000)
    expect(await mainText(page)).toMatch(/You paid 12\.50 TUSDT to Corner Coffee/)
    expect(await suite.world().merchantStatus(probe.payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    expect(wallet.callsOf("eth_sendTransaction").map(approvedValue)).toEqual([maxUint256])
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    expect(await allowance(buyer)).toBe(maxUint256)
    expect(probe.problems).toEqual([])
    expect(await storedState(page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })

    // The next payment needs no approval: the signature alone.
    const again = await openWithUsdt(3)
    expect(await again.option.innerText()).not.toContain("allow TUSDT once")
    const signingAgain = again.wallet.hold("eth_signTypedData_v4")
    await again.page.getByRole("button", { name: "Pay 12.50 TUSDT" }).click()
    await signingAgain.reached
    expect(await mainText(again.page)).toContain("Sign in your wallet")
    signingAgain.release()
    await view(again.page, "success", 120_000)
    expect(again.wallet.callsOf("eth_sendTransaction")).toHaveLength(0)
  }, 300_000)

  it("a buyer whose allowance is not zero but short: resets it to zero first (Tether's rule), allows once, signs, and succeeds", async () => {
    const key = Chain.anvilAccount(4).privateKey
    const world = suite.world()
    const owner = createWalletClient({ account: privateKeyToAccount(key), transport: http(world.chain.node.rpcUrl) })
    const hash = await owner.writeContract({ chain: null, address: usdt(), abi: token, functionName: "approve", args: [Chain.Permit2.permit2Address, 1n] })
    await reader().waitForTransactionReceipt({ hash, pollingInterval: 50 })

    const probe = await openWithUsdt(4)
    const { page, wallet } = probe
    expect(await probe.option.innerText()).toContain("first asks you to allow TUSDT once")
    const resetting = wallet.hold("eth_sendTransaction")
    await page.getByRole("button", { name: "Pay 12.50 TUSDT" }).click()
    await resetting.reached
    await view(page, "working")
    const resetText = await mainText(page)
    expect(resetText).toMatch(/Reset your TUSDT allowance[\s\S]*Step 1 of 3/)
    expect(resetText).toContain("TUSDT only changes an allowance through zero")
    expect(await steps(page)).toEqual([
      { text: "Reset the TUSDT allowance to zero (a transaction)", current: true },
      { text: "Allow TUSDT once (a transaction, only the first time)", current: false },
      { text: "Sign the payment of 12.50 TUSDT (no network fee)", current: false }
    ])
    await shoot(page, "checkout-permit2-reset")
    const approving = await nextPrompt(page, wallet, "eth_sendTransaction", resetting)
    expect(await mainText(page)).toMatch(/Allow TUSDT once[\s\S]*Step 2 of 3/)
    approving.release()
    await view(page, "success", 120_000)
    expect(wallet.callsOf("eth_sendTransaction").map(approvedValue)).toEqual([0n, maxUint256])
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    expect(await world.merchantStatus(probe.payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    expect(probe.problems).toEqual([])
  }, 300_000)
})
