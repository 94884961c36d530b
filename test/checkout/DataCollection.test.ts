/**
 * The data collection page in Chromium: inside the checkout (a dialog the portal opens when the
 * chosen option asks for buyer data; the page posts `IC_COMPLETE` to its parent, then the buyer
 * pays), and on its own in a window another page opened (it posts to its opener). Payments of
 * 1,000.00 USD or more need buyer data (the partner's default threshold).
 */
import { Chain } from "@paygate/adapters"
import type { FrameLocator, Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import { shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

/** 1,000.00 USD: at the default threshold. */
const largeValue = "100000"

describe("Data collection page in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite()
  let world: PortalWorld
  beforeAll(() => {
    world = suite.world()
  })
  const open = suite.open
  const view = (page: Page | FrameLocator, name: string, timeout = uiTimeoutMs) =>
    page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const accountOf = (index: number) => `${world.chain.chainId}:${Chain.anvilAccount(index).address}`
  const collectUrl = (paymentId: string, account: string) =>
    `${world.baseUrl}/collect?paymentId=${paymentId}&account=${encodeURIComponent(account)}`

  /**
   * Opens `url` in a window from a checkout page of `paymentId` (its opener), which records every
   * message it receives in `received`.
   */
  const openFromOpener = async (paymentId: string, openerView: string, url: string) => {
    const probe = await open()
    await probe.page.goto(`${world.baseUrl}/checkout/${paymentId}`)
    await view(probe.page, openerView)
    await probe.page.evaluate(() => {
      const w = globalThis as any
      w.received = []
      w.addEventListener("message", (event: any) => w.received.push(event.data))
    })
    const [popup] = await Promise.all([
      probe.page.waitForEvent("popup"),
      probe.page.evaluate((target) => void (globalThis as any).open(target), url)
    ])
    /** The messages the opener got, once it got `count`. */
    const received = async (count: number) => {
      await probe.page.waitForFunction((n) => (globalThis as any).received.length >= n, count)
      return await probe.page.evaluate(() => (globalThis as any).received as Array<unknown>)
    }
    return { popup, received, problems: probe.problems }
  }

  /** Fills the form validly: place of residence chosen. */
  const fillForm = async (form: Page | FrameLocator) => {
    await form.getByLabel("Full name").fill("Ada Lovelace")
    await form.getByLabel("Date of birth").fill("1990-12-10")
    await form.getByRole("radio", { name: "Where I live" }).check()
    await form.getByLabel("Country of residence").selectOption("GB")
    await form.getByLabel("Address of residence").fill("12 St James's Square, London")
    await form.getByRole("checkbox").check()
  }

  it("collects the buyer's data in the checkout when the option asks for it, then pays", async () => {
    const payment = await world.createPayment({ value: largeValue })
    const probe = await open()
    const { page } = probe
    const wallet = new TestWallet(Chain.anvilAccount(1).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
    await wallet.install(page)
    await page.goto(payment.gatewayUrl)
    await view(page, "connect")
    expect(await page.locator("#summary").innerText()).toContain("$1,000.00")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    expect(await page.locator("label.option").innerText()).toMatch(/1,000\.00 TUSDC[\s\S]*Asks for your details/)
    await shoot(page, "checkout-options-collect")

    await page.getByRole("button", { name: "Pay 1,000.00 TUSDC" }).click()
    const dialog = page.locator("#collect-dialog[open]")
    await dialog.waitFor()
    expect(await dialog.locator("iframe").getAttribute("src")).toBe(collectUrl(payment.paymentId, accountOf(1)))
    const form = page.frameLocator("#collect-dialog iframe")
    await view(form, "form")
    await shoot(page, "checkout-collect-dialog")

    // Checked in the page first: nothing is sent while the form is incomplete.
    await form.getByRole("button", { name: "Continue" }).click()
    await form.getByRole("alert").waitFor()
    expect(await form.locator("#fullName-error").innerText()).toBe("This field is required.")
    expect(await form.locator("#tosConfirmed-error").innerText()).toBe("Tick this box to continue.")
    expect(await form.getByLabel("Full name").getAttribute("aria-invalid")).toBe("true")
    await shoot(page, "checkout-collect-errors")

    await fillForm(form)
    await form.getByRole("button", { name: "Continue" }).click()
    // IC_COMPLETE closes the dialog; the wallet signs; the payment completes.
    await page.locator("#collect-dialog:not([open])").waitFor({ state: "attached" })
    await view(page, "success", 120_000)
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    expect(probe.problems).toEqual([])
    expect(await storedState(page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
  }, 300_000)

  it("works on its own: validates, submits, and posts IC_COMPLETE to the window that opened it", async () => {
    const payment = await world.createPayment({ value: largeValue })
    const account = accountOf(2)
    const { popup, received, problems } = await openFromOpener(payment.paymentId, "connect", collectUrl(payment.paymentId, account))
    await view(popup, "form")
    const headers = await (await popup.request.get(collectUrl(payment.paymentId, account))).headers()
    // Framed by this service's pages only (WALLET_ORIGINS is unset): test/checkout/PageIsolation.test.ts.
    expect(headers["content-security-policy"]).toContain(`frame-ancestors 'self' ${world.baseUrl};`)
    expect(headers["content-security-policy"]).not.toContain("unsafe")
    await popup.setViewportSize({ width: 375, height: 812 })
    await shoot(popup, "collect-form")

    // Every field has its label; the alternatives are a radio group.
    for (const label of ["Full name", "Date of birth", "Country of birth", "Place of birth"]) {
      expect(await popup.getByLabel(label, { exact: true }).count()).toBe(1)
    }
    expect(await popup.getByRole("radio").count()).toBe(2)
    await popup.getByRole("radio", { name: "Where I live" }).check()
    await popup.getByLabel("Country of residence").selectOption("FR")
    await popup.getByRole("button", { name: "Continue" }).click()
    await popup.getByRole("alert").waitFor()
    expect(await popup.locator("#porAddress-error").innerText()).toBe("This field is required.")
    expect(await popup.locator("#porCountry-error").isHidden()).toBe(true)
    await shoot(popup, "collect-errors")

    await fillForm(popup)
    await popup.getByRole("button", { name: "Continue" }).click()
    await view(popup, "done")
    expect(await popup.locator("main").innerText()).toContain("Thank you")
    await shoot(popup, "collect-done")
    expect(await received(1)).toEqual([{ type: "IC_COMPLETE" }])

    // Opened again for the same account: nothing more to collect.
    await popup.reload()
    await view(popup, "done")
    expect(await received(2)).toEqual([{ type: "IC_COMPLETE" }, { type: "IC_COMPLETE" }])
    expect(problems).toEqual([])
  }, 180_000)

  it("posts IC_ERROR when the payment can no longer take data", async () => {
    const payment = await world.createPayment({ value: largeValue })
    await world.expireNow(payment.paymentId)
    const { popup, received, problems } = await openFromOpener(payment.paymentId, "expired", collectUrl(payment.paymentId, accountOf(3)))
    await view(popup, "error")
    expect(await popup.locator("main").innerText()).toContain("This payment has expired.")
    expect(await received(1)).toEqual([{ type: "IC_ERROR", message: "This payment has expired." }])
    // The only complaint: the service's 409 answer to the page's request.
    expect(problems.filter((problem) => !problem.includes("status of 409"))).toEqual([])
  }, 120_000)

  it("answers a link without a known payment or a valid account with a not-found page", async () => {
    const payment = await world.createPayment({ value: largeValue })
    const { page } = await open()
    for (const url of [
      collectUrl("pay_01UNKNOWN0000000000000000000", accountOf(1)),
      collectUrl(payment.paymentId, "not-an-account"),
      `${world.baseUrl}/collect`
    ]) {
      const response = await page.goto(url)
      expect(response?.status()).toBe(404)
      expect(await page.locator("main").innerText()).toContain("Payment not found")
    }
  }, 60_000)
})
