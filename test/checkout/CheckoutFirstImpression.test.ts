/**
 * The checkout's first impression in Chromium, against the service as `npm start` runs it: before
 * anything is connected a buyer sees the merchant's logo (or initial), the order reference, the
 * amount and the token amount, and one countdown with the time it ends and its time zone; a phone
 * with no browser wallet gets the deposit path as the first choice, with no warning-coloured box;
 * the card keeps its width from view to view; the footer links to the merchant's support; the
 * receipt says when it was paid and the token amount. Screenshots at 375 px and 1280 px:
 * artifacts/screenshots/checkout-first-*.png.
 */
import { Chain } from "@paygate/adapters"
import { randomBytes } from "node:crypto"
import type { Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import { type ProbedPage, shoot, uiTimeoutMs, viewports } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

const logoOrigin = "https://cdn.harbour.test"
// A square logo, answered by the test for the merchant's HTTPS icon URL.
const logo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#0f766e"/><path d="M10 28V12h4v6h12v-6h4v16h-4v-6H14v6z" fill="#fff"/></svg>`
const settleTimeoutMs = 120_000

describe("Checkout first impression in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite()
  let world: PortalWorld
  let merchantId = ""
  let plainMerchantId = ""

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method,
      headers: { "api-key": world.partnerKey, "content-type": "application/json", "idempotency-key": randomBytes(8).toString("hex") },
      body: body === undefined ? null : JSON.stringify(body)
    })
    const json = await response.json() as any
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
    return json
  }

  beforeAll(async () => {
    world = suite.world()
    merchantId = (await api("POST", "/v1/merchants", { merchantName: "Harbour Books", merchantEmail: "help@harbour.test", iconUrl: `${logoOrigin}/logo.svg` })).merchantId
    plainMerchantId = (await api("POST", "/v1/merchants", { merchantName: "plain goods" })).merchantId
  })

  const pay = (merchant: string, referenceId: string) =>
    api("POST", "/v1/payments", { merchantId: merchant, amount: { unit: "iso4217/USD", value: "1250" }, referenceId }) as Promise<{ paymentId: string; gatewayUrl: string }>

  const open = async (gatewayUrl: string, options: { readonly wallet?: boolean; readonly width?: number } = {}) => {
    const probe = await suite.open()
    await probe.page.setViewportSize(options.width === 1280 ? viewports.desktop : viewports.phone)
    await probe.page.route(`${logoOrigin}/**`, (route) => route.fulfill({ contentType: "image/svg+xml", body: logo }))
    const wallet = new TestWallet(Chain.anvilAccount(1).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
    if (options.wallet === true) await wallet.install(probe.page)
    await probe.page.goto(gatewayUrl)
    return probe
  }

  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const cardWidth = async (page: Page) => (await page.locator("main.card").boundingBox())!.width
  const summaryText = (page: Page) => page.locator("#summary").innerText()

  /** Boxes a buyer reads as a warning: the portal's notice and alert styles, visible in the view. */
  const warnings = (page: Page) => page.locator("main .notice:visible, main .alert:visible")

  const expectClean = (probe: ProbedPage) => {
    expect(probe.problems).toEqual([])
    expect(probe.requests.filter((url) => !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:") && !url.startsWith(logoOrigin))).toEqual([])
  }

  it("shows a phone without a wallet the logo, order reference, amount, token amount and one countdown with its time zone, and the deposit path calmly", async () => {
    const payment = await pay(merchantId, "HB-1042")
    const probe = await open(payment.gatewayUrl)
    const { page } = probe
    await view(page, "connect")
    // The logo is the merchant's image, loaded and shown.
    const image = page.locator("#summary img.merchant-icon")
    await expect.poll(() => image.evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true)
    expect(await image.getAttribute("src")).toBe(`${logoOrigin}/logo.svg`)
    const summary = await summaryText(page)
    expect(summary).toMatch(/Harbour Books\s+Order HB-1042/)
    expect(summary).toMatch(/\$12\.50\s+12\.50 TUSDC on Anvil \(local\)/)
    // One countdown, with the clock time it ends and the time zone.
    expect(summary).toMatch(/Time left 1[45]:[0-5]\d · until \d{1,2}:\d\d [AP]M UTC/)
    expect(await page.locator("[data-deadline]").count()).toBe(1)

    // No wallet: paying from an exchange is the first (primary) choice; nothing is coloured as a warning.
    expect(await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).getAttribute("class")).toContain("primary")
    expect(await warnings(page).count()).toBe(0)
    expect(await page.locator("main").innerText()).toContain("No browser wallet was found in this browser")
    // Support: the merchant's email, with the order in the subject.
    expect(await page.getByRole("link", { name: "Contact Harbour Books" }).getAttribute("href")).toBe("mailto:help@harbour.test?subject=Order%20HB-1042")
    await shoot(page, "checkout-first-connect")

    // The card keeps its width between views, at both widths.
    for (const viewport of [viewports.phone, viewports.desktop]) {
      await page.setViewportSize(viewport)
      const connect = await cardWidth(page)
      await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).click()
      await view(page, "deposit")
      expect(await cardWidth(page)).toBe(connect)
      // Still the one countdown: the deposit view says the clock time, not a second timer.
      expect(await page.locator("[data-deadline]").count()).toBe(1)
      expect(await page.locator("main").innerText()).toMatch(/It must arrive before \d{1,2}:\d\d [AP]M UTC\./)
      if (viewport === viewports.desktop) await shoot(page, "checkout-first-deposit")
      await page.getByRole("button", { name: "Pay with a browser wallet instead" }).click()
      await view(page, "connect")
      expect(await cardWidth(page)).toBe(connect)
    }
    expectClean(probe)
  }, 120_000)

  it("shows a merchant without a logo by its initial and without a support address no support link", async () => {
    const payment = await pay(plainMerchantId, "PG-7")
    const probe = await open(payment.gatewayUrl)
    const { page } = probe
    await view(page, "connect")
    expect(await page.locator("#summary .merchant-icon.avatar").innerText()).toBe("P")
    expect(await summaryText(page)).toMatch(/plain goods\s+Order PG-7/)
    expect(await page.getByRole("link", { name: /^Contact / }).count()).toBe(0)
    await shoot(page, "checkout-first-initial")
    expectClean(probe)
  }, 60_000)

  it("keeps the card's width from connecting to the receipt, which shows the date and the token amount paid", async () => {
    const payment = await pay(merchantId, "HB-1043")
    const probe = await open(payment.gatewayUrl, { wallet: true, width: 1280 })
    const { page } = probe
    await view(page, "connect")
    const width = await cardWidth(page)
    expect(await summaryText(page)).toContain("12.50 TUSDC on Anvil (local)")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    expect(await cardWidth(page)).toBe(width)
    await shoot(page, "checkout-first-options")
    await page.getByRole("button", { name: "Pay 12.50 TUSDC" }).click()
    await view(page, "success", settleTimeoutMs)
    expect(await cardWidth(page)).toBe(width)
    const receipt = page.locator("dl.receipt")
    await expect.poll(() => receipt.innerText(), { timeout: 15_000 }).toContain("Paid with")
    const text = await receipt.innerText()
    const today = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(new Date())
    expect(text).toMatch(new RegExp(`Order reference\\s+HB-1043\\s+Date\\s+${today}, \\d{1,2}:\\d\\d [AP]M UTC\\s+Amount\\s+\\$12\\.50\\s+Paid with\\s+12\\.50 TUSDC`))
    // The header no longer counts down once paid; the token estimate is gone too.
    expect(await page.locator("[data-deadline]").count()).toBe(0)
    await expect.poll(() => receipt.innerText(), { timeout: 15_000 }).toContain("Transaction")
    await shoot(page, "checkout-first-receipt")

    // Opened again later (a fresh page, from the service's receipt): the same date and token amount.
    const again = await open(payment.gatewayUrl)
    await view(again.page, "paid")
    await expect.poll(() => again.page.locator("dl.receipt").innerText()).toMatch(/Date\s+\w{3} \d{1,2}, \d{4}, [\s\S]*Paid with\s+12\.50 TUSDC/)
    expectClean(again)
  }, 240_000)
})
