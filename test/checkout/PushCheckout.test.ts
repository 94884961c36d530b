/**
 * The hosted checkout with push payments (TUSDC configured without EIP-3009): the option's `build`
 * action goes through `/fetch`, the wallet sends the ERC-20 transfer itself (`eth_sendTransaction`),
 * and the service sees it on chain.
 */
import { Chain } from "@paygate/adapters"
import { describe, expect, it } from "vitest"
import { shoot, storedState } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

describe("Hosted checkout with push payments in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite({ pull: false })

  it("pays with a push transfer: fetches the build action and has the wallet send the ERC-20 transfer", async () => {
    const world = suite.world()
    const payment = await world.createPayment()
    const { page, problems, requests } = await suite.open()
    const wallet = new TestWallet(Chain.anvilAccount(2).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
    await wallet.install(page)
    await page.goto(payment.gatewayUrl)
    await page.getByRole("button", { name: testWalletName }).click()
    await page.locator("main[data-view=options]").waitFor()

    const sending = wallet.hold("eth_sendTransaction")
    await page.getByRole("button", { name: "Pay 12.50 TUSDC" }).click()
    await sending.reached
    await page.locator("main[data-view=working]").waitFor()
    expect(await page.locator("main").innerText()).toContain("Approve in your wallet")
    await shoot(page, "checkout-approve-transfer")
    sending.release()

    await page.locator("main[data-view=success]").waitFor({ timeout: 120_000 })
    expect(requests.filter((url) => url.endsWith("/fetch"))).toHaveLength(1)
    expect(wallet.callsOf("eth_sendTransaction")).toHaveLength(1)
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(0)
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    expect(problems).toEqual([])
    expect(await storedState(page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
  }, 240_000)
})
