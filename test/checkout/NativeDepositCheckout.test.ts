/**
 * Paying the chain's own coin into a deposit address, in Chromium, against the service with the
 * worker's watcher and sweeper, on PGlite: the deposit view offers TETH beside TUSDC; chosen, it
 * shows the amount in ether with its precision, the QR code (as Chromium drew it) is exactly the
 * EIP-681 value request of the option, the warning no longer says the coin is lost; ether sent by an
 * account that never talks to the service turns the page to success. Screenshots at 375 px and
 * 1280 px go to artifacts/screenshots/.
 */
import { Chain } from "@paygate/adapters"
import jsqr from "jsqr"
import type { Page } from "playwright-core"
import { PNG } from "pngjs"
import { type Address, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { shoot, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"

const jsQR = jsqr.default
const settleTimeoutMs = 120_000

describe("Deposit checkout in ether, in Chromium (anvil, worker, PGlite)", () => {
  const suite = portalSuite({ native: true })
  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const mainText = (page: Page) => page.locator("main").innerText()
  const scan = async (page: Page) => {
    await page.locator(".deposit-qr img").evaluate((image: any) => image.decode())
    const png = PNG.sync.read(await page.locator(".deposit-qr img").screenshot())
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data
  }

  it("offers ether at the payment's deposit address with its EIP-681 QR code and no 'lost' warning for the coin; ether sent there pays", async () => {
    const world = suite.world()
    const payment = await world.createPayment()
    const probe = await suite.open()
    const { page } = probe
    await page.goto(payment.gatewayUrl)
    await view(page, "connect")
    const answer = page.waitForResponse((response) => response.url().endsWith(`/v1/gateway/payment/${payment.paymentId}/deposit`))
    await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).click()
    const options = ((await (await answer).json()) as { options: ReadonlyArray<{ asset: string; address: Address; uri: string; amount: { value: string } }> }).options
    await view(page, "deposit")
    const ether = options.find((o) => o.asset.endsWith("/slip44:60"))!
    expect(ether.uri).toBe(`ethereum:${ether.address}@${world.chain.node.chainId}?value=${ether.amount.value}`)
    expect(ether.address).toBe(Chain.DepositAddresses.depositAddress(world.chain.contracts.depositFactory, payment.paymentId))

    await page.getByLabel(/TETH/).check()
    await expect.poll(() => mainText(page), { timeout: uiTimeoutMs }).toMatch(/Send only TETH on Anvil \(local\)/)
    const text = await mainText(page)
    expect(text).toContain("Test Ether")
    expect(text).toContain(ether.address)
    expect(text).not.toContain("takes tokens only")
    expect(text).toContain("This address is for this payment only.")
    expect(await scan(page)).toBe(ether.uri)
    expect(await page.getByRole("link", { name: "Open in a wallet app" }).getAttribute("href")).toBe(ether.uri)
    await shoot(page, "checkout-deposit-ether")

    const wallet = createWalletClient({ account: privateKeyToAccount(Chain.anvilAccount(7).privateKey), transport: http(world.chain.node.rpcUrl) })
    await wallet.sendTransaction({ chain: null, to: ether.address, value: BigInt(ether.amount.value) })
    await view(page, "success", settleTimeoutMs)
    expect(await mainText(page)).toMatch(/Payment successful[\s\S]*TETH to Corner Coffee/)
    await shoot(page, "checkout-deposit-ether-success")
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
  }, 300_000)
})
