/**
 * The receipt of the hosted checkout when the chain's configuration names a block explorer: the
 * transaction hash links to `{explorerUrl}/tx/{hash}` (in a new tab, without a referrer). The
 * local chain has none; `Checkout.test.ts` shows the hash without a link there. And `/docs`, which
 * opens with the Merchant API's credentials selected.
 */
import { Chain } from "@paygate/adapters"
import { beforeAll, describe, expect, it } from "vitest"
import { screenshotDir, shoot, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

const explorer = "https://explorer.test"

describe("Hosted checkout receipt with a block explorer, and /docs (Chromium)", () => {
  const suite = portalSuite({ explorerUrl: `${explorer}/` })
  let world: PortalWorld
  beforeAll(() => {
    world = suite.world()
  })

  it("links the transaction to the explorer and shows the order reference and the test-mode badge", async () => {
    const payment = await world.createPayment({ value: "4200" })
    const { page, problems } = await suite.open()
    await new TestWallet(Chain.anvilAccount(1).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl }).install(page)
    await page.goto(payment.gatewayUrl)
    await page.locator(`main[data-view="connect"]`).waitFor()
    expect(await page.locator("#summary").innerText()).toMatch(/Corner Coffee[\s\S]*Test mode[\s\S]*\$42\.00/)
    await page.getByRole("button", { name: testWalletName }).click()
    await page.getByRole("button", { name: /^Pay / }).click()
    await page.locator(`main[data-view="success"]`).waitFor({ timeout: 120_000 })

    const link = page.locator(".receipt a.tx-hash")
    await link.waitFor({ timeout: uiTimeoutMs })
    // The hash is the link's text; a hidden note tells screen readers it opens the explorer.
    const hash = await link.evaluate((a) => a.firstChild?.textContent ?? "")
    expect(await link.textContent()).toBe(`${hash} (opens the block explorer)`)
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await link.getAttribute("href")).toBe(`${explorer}/tx/${hash}`)
    expect(await link.getAttribute("target")).toBe("_blank")
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
    expect(await page.locator(".receipt").innerText()).toMatch(/Order reference\s+order-\d+/)
    await shoot(page, "checkout-success-receipt-explorer")

    // Opened again later: the same receipt under "already paid".
    const again = await suite.open()
    await again.page.goto(payment.gatewayUrl)
    await again.page.locator(`main[data-view="paid"]`).waitFor()
    await again.page.locator(".receipt a.tx-hash").waitFor()
    expect(await again.page.locator(".receipt a.tx-hash").getAttribute("href")).toBe(`${explorer}/tx/${hash}`)
    await shoot(again.page, "checkout-already-paid-receipt")
    expect([...problems, ...again.problems]).toEqual([])
  }, 300_000)

  it("/docs opens with the Merchant API's credentials (Api-Key and Merchant-Id) selected", async () => {
    const { page, problems } = await suite.open()
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${world.baseUrl}/docs`)
    await page.getByText("Authentication", { exact: true }).first().waitFor()
    const text = await page.locator("body").innerText()
    // Without the preference Scalar opened with "No authentication selected".
    expect(text).toMatch(/Authentication\s+Selected Auth Type:\s+PartnerApiKey & MerchantId\s+PartnerApiKey: Partner secret key/)
    expect(text).toMatch(/Name\s+:\s+Merchant-Id/)
    expect(text).not.toContain("No authentication selected")
    await page.screenshot({ path: `${screenshotDir}/docs-1280.png` })
    expect(problems).toEqual([])
  })

  it("answers the receipt of an unknown payment with the contract's not-found error", async () => {
    const response = await fetch(`${world.baseUrl}/checkout/pay_00000000000000000000000000/receipt`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ code: "payment_not_found", message: "No payment pay_00000000000000000000000000." })
    const waiting = await world.createPayment()
    const receipt = await fetch(`${world.baseUrl}/checkout/${waiting.paymentId}/receipt`)
    expect(receipt.headers.get("cache-control")).toBe("no-store")
    expect(await receipt.json()).toEqual({ transaction: null, transfers: [], paid: null })
  })
})
