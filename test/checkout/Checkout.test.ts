/**
 * The hosted checkout portal in Chromium, against the service as `npm start` runs it (anvil with
 * TUSDC, PGlite, the worker's executor): a buyer with an injected EIP-1193 wallet (a viem account
 * in Node) pays, declines, cancels, lets a payment expire, and is sent back to the merchant after
 * the 3-second countdown only when both redirect URLs are HTTPS. Every test also checks that the
 * page logged no error, loaded nothing from elsewhere, and left nothing in the browser's storage.
 * Screenshots of each view at 375 px and 1280 px go to artifacts/screenshots/.
 */
import { Chain } from "@paygate/adapters"
import type { Page } from "playwright-core"
import { createTestClient, http } from "viem"
import { generatePrivateKey } from "viem/accounts"
import { beforeAll, describe, expect, it } from "vitest"
import { type ProbedPage, shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { CreatedPayment, PortalWorld } from "./PortalWorld.ts"
import { type InjectOptions, TestWallet, testWalletName } from "./TestWallet.ts"

const shop = "https://shop.test"
const redirectUrls = { successUrl: `${shop}/thanks?order=42`, errorUrl: `${shop}/sorry` }
/** Payment to final status, on a small shared machine. */
const settleTimeoutMs = 120_000

describe("Hosted checkout in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite()
  let world: PortalWorld
  beforeAll(() => {
    world = suite.world()
  })

  const walletOf = (privateKey = Chain.anvilAccount(1).privateKey) =>
    new TestWallet(privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })

  /** Opens a payment's `gatewayUrl` with a wallet (or none) and, when asked, Playwright's clock. */
  const checkout = async (
    payment: CreatedPayment,
    options: { readonly wallet?: TestWallet | null; readonly inject?: InjectOptions; readonly clock?: boolean } = {}
  ) => {
    const probe = await suite.open()
    // The merchant's site.
    await probe.page.route(`${shop}/**`, (route) =>
      route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Shop</title><h1>Back at the shop</h1>" }))
    const wallet = options.wallet === undefined ? walletOf() : options.wallet
    if (wallet !== null) await wallet.install(probe.page, options.inject)
    if (options.clock === true) await probe.page.clock.install()
    const response = await probe.page.goto(payment.gatewayUrl)
    return { ...probe, wallet: wallet ?? walletOf(), response }
  }

  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const mainText = (page: Page) => page.locator("main").innerText()
  const focusedText = (page: Page) => page.evaluate(() => ((globalThis as any).document.activeElement?.textContent ?? "") as string)
  // Pauses the page's clock a moment from its now (timers due meanwhile fire). On a loaded machine
  // the page's clock can pass that moment before the call lands: then it aims again from its new now.
  const pauseClock = async (page: Page): Promise<void> => {
    for (let attempt = 1;; attempt++) {
      try {
        return await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 50)
      } catch (error) {
        if (attempt >= 5 || !String(error).includes("to the past")) throw error
      }
    }
  }

  /** The status of a transaction on the local chain (`0x1`: it succeeded). */
  const transferStatus = async (hash: string) => {
    const response = await fetch(world.chain.node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] })
    })
    return ((await response.json()) as { result: { status: string } | null }).result?.status
  }

  /** What every test ends with: no error in the page, nothing loaded from elsewhere, nothing stored. */
  const expectClean = async (probe: ProbedPage, allowedOrigins: ReadonlyArray<string> = []) => {
    expect(probe.problems).toEqual([])
    const outside = probe.requests.filter((url) =>
      !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:") && !allowedOrigins.some((origin) => url.startsWith(origin)))
    expect(outside).toEqual([])
    if (probe.page.url().startsWith(world.baseUrl)) {
      expect(await storedState(probe.page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
    }
  }

  it("pays end to end: connect, switch network, sign, confirm, follow, then a 3-second countdown and the redirect with payment_id", async () => {
    const payment = await world.createPayment({ checkout: redirectUrls })
    expect(payment.gatewayUrl).toBe(`${world.baseUrl}/checkout/${payment.paymentId}`)
    const probe = await checkout(payment, { clock: true })
    const { page, wallet } = probe

    // Strict policy: scripts, styles and connections of this origin only; no inline script.
    const headers = probe.response!.headers()
    expect(headers["content-security-policy"]).toContain("default-src 'none'")
    expect(headers["content-security-policy"]).toContain("script-src 'self'")
    expect(headers["content-security-policy"]).toContain("require-trusted-types-for 'script'")
    expect(headers["content-security-policy"]).not.toContain("unsafe")
    expect(headers["cache-control"]).toBe("no-store")

    await view(page, "connect")
    expect(await page.locator("#summary").innerText()).toMatch(/Corner Coffee[\s\S]*\$12\.50[\s\S]*Time left 1[45]:[0-5][0-9]/)
    await shoot(page, "checkout-connect")

    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    const options = page.locator("label.option")
    expect(await options.count()).toBe(1)
    expect(await options.innerText()).toMatch(/12\.50 TUSDC[\s\S]*Test USD Coin on Anvil \(local\)[\s\S]*From 0x7099…79C8/)
    await shoot(page, "checkout-options")

    // The wallet's prompt, held open for the screenshot.
    const signing = wallet.hold("eth_signTypedData_v4")
    // The first status poll, held for the processing screenshot.
    let releaseStatus!: () => void
    const statusHeld = new Promise<void>((resolve) => (releaseStatus = resolve))
    await page.route("**/status?**", async (route) => {
      await statusHeld
      await route.continue()
    }, { times: 1 })
    await page.getByRole("button", { name: "Pay 12.50 TUSDC" }).click()
    await signing.reached
    await view(page, "working")
    expect(await mainText(page)).toContain("Sign in your wallet")
    await shoot(page, "checkout-sign")
    signing.release()
    await view(page, "processing")
    await shoot(page, "checkout-processing")
    releaseStatus()

    await view(page, "success", settleTimeoutMs)
    await pauseClock(page)
    const number = page.locator(".countdown-number")
    const first = Number(await number.innerText())
    expect(first).toBeGreaterThanOrEqual(1)
    expect(first).toBeLessThanOrEqual(3)
    expect(await mainText(page)).toMatch(/Payment successful[\s\S]*You paid 12\.50 TUSDC to Corner Coffee[\s\S]*Returning you to Corner Coffee in \d s/)
    await shoot(page, "checkout-success-redirect")
    await expectClean(probe)
    // The countdown runs down second by second; the page stays until it ends.
    for (let left = first - 1; left >= 1; left--) {
      await page.clock.runFor(1000)
      expect(await number.innerText()).toBe(String(left))
      expect(page.url()).toBe(payment.gatewayUrl)
    }
    await Promise.all([page.waitForURL(`${shop}/**`), page.clock.runFor(1000)])
    expect(page.url()).toBe(`${shop}/thanks?order=42&payment_id=${payment.paymentId}`)

    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    expect(wallet.callsOf("wallet_switchEthereumChain")).toEqual([
      { method: "wallet_switchEthereumChain", params: [{ chainId: `0x${world.chain.node.chainId.toString(16)}` }] }
    ])
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    await expectClean(probe, [shop])

    // Opened again later: already paid, a link back, no countdown.
    const again = await checkout(payment)
    await view(again.page, "paid")
    expect(await mainText(again.page)).toContain("This payment is already paid")
    expect(await again.page.getByRole("link", { name: "Return to Corner Coffee" }).getAttribute("href")).toBe(
      `${shop}/thanks?order=42&payment_id=${payment.paymentId}`
    )
    expect(await again.page.locator(".countdown").count()).toBe(0)
    await shoot(again.page, "checkout-already-paid")
    await expectClean(again)
  }, 300_000)

  it("shows generic terminal views, with no redirect, when the redirect URLs are missing or not HTTPS", async () => {
    const cases = [
      { name: "missing", checkout: undefined },
      { name: "not-https", checkout: { successUrl: "http://shop.test/thanks", errorUrl: `${shop}/sorry` } }
    ]
    for (const { name, checkout: urls } of cases) {
      const payment = await world.createPayment(urls === undefined ? {} : { checkout: urls })
      const probe = await checkout(payment, { clock: true })
      const { page } = probe
      await view(page, "connect")
      await page.getByRole("button", { name: testWalletName }).click()
      await view(page, "options")
      await page.getByRole("button", { name: /^Pay / }).click()
      await view(page, "success", settleTimeoutMs)
      expect(await mainText(page)).toMatch(/Payment successful[\s\S]*You can close this page\./)
      // The receipt: the order reference, the amount, the test-mode badge, and the transaction hash as
      // text (the local chain has no block explorer, so no link); the date and token paid once the service answers.
      expect(await page.locator(".receipt").innerText())
        .toMatch(/Order reference\s+order-\d+\s+(?:Date\s+.+\s+)?Amount\s+\$12\.50\s+(?:Paid with\s+.+\s+)?Mode\s+Test payment: no real funds were moved/)
      expect(await page.locator("#summary .badge.test-mode").innerText()).toBe("Test mode")
      const hash = await page.locator(".receipt code.tx-hash").innerText()
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
      expect(await transferStatus(hash)).toBe("0x1")
      expect(await page.locator("main a, .countdown").count()).toBe(0)
      if (name === "missing") await shoot(page, "checkout-success-generic")
      // Long after the countdown would have ended, the buyer is still here.
      await page.clock.runFor(10_000)
      expect(page.url()).toBe(payment.gatewayUrl)
      expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
      await expectClean(probe)
    }
  }, 300_000)

  it("shows the failure view and returns the buyer to errorUrl after the countdown when the payment fails on chain (no funds until its authorization expired)", async () => {
    // A buyer without TUSDC: nothing is sent while the authorization is valid (the transfer would
    // revert), and the payment fails once the chain is past its validBefore (at most the payment's
    // expiry). The chain's clock is moved there, then back (a snapshot), for the tests after this one.
    const payment = await world.createPayment({ checkout: redirectUrls })
    const probe = await checkout(payment, { wallet: walletOf(generatePrivateKey()), clock: true })
    const { page } = probe
    await view(page, "connect")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    await page.getByRole("button", { name: /^Pay / }).click()
    await view(page, "processing")
    const anvil = createTestClient({ mode: "anvil", transport: http(world.chain.node.rpcUrl) })
    const snapshot = await anvil.snapshot()
    try {
      await anvil.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(Date.now() / 1000) + 16 * 60) })
      await anvil.mine({ blocks: 1 })
      await view(page, "failed", settleTimeoutMs)
    } finally {
      await anvil.revert({ id: snapshot })
    }
    await pauseClock(page)
    expect(await mainText(page)).toMatch(/Payment failed[\s\S]*Returning you to Corner Coffee in \d s/)
    await shoot(page, "checkout-failed-redirect")
    await expectClean(probe)
    await Promise.all([page.waitForURL(`${shop}/**`), page.clock.runFor(3000)])
    expect(page.url()).toBe(`${shop}/sorry?payment_id=${payment.paymentId}`)
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "failed", isFinal: true })
  }, 300_000)

  it("says a priced option's rate is a market rate (no second countdown) and re-quotes it when it runs out", async () => {
    // EUR is priced through the test feed: the quote has an expiry (API rules §4: 5 minutes).
    const payment = await world.createPayment({ currency: "EUR", value: "1250" })
    const probe = await checkout(payment, { clock: true })
    const { page } = probe
    await view(page, "connect")
    expect(await page.locator("#summary").innerText()).toContain("€12.50")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    expect(await page.locator("label.option").innerText()).toMatch(/TUSDC[\s\S]*Market rate, updated by itself/)
    // One countdown on the page: the payment's, in the header.
    expect(await page.locator("[data-deadline]").count()).toBe(1)
    const optionRequests = () => probe.requests.filter((url) => url.includes("/options?")).length
    const asked = optionRequests()

    await page.clock.fastForward("05:01")
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").innerText()).toBe("The rates were updated. Check the amount, then pay.")
    expect(await page.locator("label.option").innerText()).toContain("Market rate, updated by itself")
    expect(optionRequests()).toBe(asked + 1)
    await shoot(page, "checkout-options-requoted")

    await page.getByRole("button", { name: /^Pay / }).click()
    await view(page, "success", settleTimeoutMs)
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
    await expectClean(probe)
  }, 180_000)

  it("shows the expired view: opened after the expiry, and when the time left runs out on an open page", async () => {
    const late = await world.createPayment({ checkout: redirectUrls })
    await world.expireNow(late.paymentId)
    const first = await checkout(late)
    await view(first.page, "expired")
    expect(await mainText(first.page)).toContain("This payment has expired")
    expect(await first.page.getByRole("link", { name: "Return to Corner Coffee" }).getAttribute("href")).toBe(
      `${shop}/sorry?payment_id=${late.paymentId}`
    )
    expect(await first.page.getByRole("button", { name: "Cancel payment" }).count()).toBe(0)
    expect(await first.page.locator(".time-left").count()).toBe(0)
    await shoot(first.page, "checkout-expired")
    await expectClean(first)

    const open = await world.createPayment()
    const second = await checkout(open, { clock: true })
    await view(second.page, "connect")
    await world.expireNow(open.paymentId)
    await second.page.clock.fastForward("16:00")
    await view(second.page, "expired")
    expect(await mainText(second.page)).toMatch(/This payment has expired[\s\S]*You can close this page\./)
    await expectClean(second)
  }, 180_000)

  it("cancels a payment after asking to be sure", async () => {
    const payment = await world.createPayment({ checkout: redirectUrls })
    const probe = await checkout(payment)
    const { page } = probe
    await view(page, "connect")
    await page.getByRole("button", { name: "Cancel payment" }).click()
    await view(page, "cancel")
    await shoot(page, "checkout-cancel-confirm")
    await page.getByRole("button", { name: "Keep paying" }).click()
    await view(page, "connect")
    await page.getByRole("button", { name: "Cancel payment" }).click()
    await page.getByRole("button", { name: "Yes, cancel payment" }).click()
    await view(page, "cancelled")
    expect(await mainText(page)).toContain("Payment cancelled")
    expect(await page.getByRole("link", { name: "Return to Corner Coffee" }).getAttribute("href")).toBe(
      `${shop}/sorry?payment_id=${payment.paymentId}`
    )
    expect(await page.locator(".countdown").count()).toBe(0)
    await shoot(page, "checkout-cancelled")
    // The Merchant API reports a buyer's cancellation as failed (API rules §4).
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "failed", isFinal: true })
    await expectClean(probe)
  }, 120_000)

  it("handles declined requests without breaking the page, all by keyboard", async () => {
    const payment = await world.createPayment()
    const probe = await checkout(payment)
    const { page, wallet } = probe
    await view(page, "connect")

    wallet.declining.add("eth_requestAccounts")
    await page.keyboard.press("Tab")
    expect(await focusedText(page)).toBe(testWalletName)
    await page.keyboard.press("Enter")
    await view(page, "connect")
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").innerText()).toBe("You declined the request in your wallet.")

    wallet.declining.clear()
    wallet.declining.add("eth_signTypedData_v4")
    await page.keyboard.press("Tab")
    expect(await focusedText(page)).toBe(testWalletName)
    await page.keyboard.press("Enter")
    await view(page, "options")
    for (let presses = 0; presses < 5 && !(await focusedText(page)).startsWith("Pay "); presses++) await page.keyboard.press("Tab")
    expect(await focusedText(page)).toBe("Pay 12.50 TUSDC")
    await page.keyboard.press("Enter")
    await page.getByRole("alert").waitFor()
    await view(page, "options")
    expect(await page.getByRole("alert").innerText()).toBe("You declined the request in your wallet.")
    await shoot(page, "checkout-declined")
    expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "pending", isFinal: false })

    // The buyer changes their mind: the same page pays.
    wallet.declining.clear()
    await page.getByRole("button", { name: "Pay 12.50 TUSDC" }).click()
    await view(page, "success", settleTimeoutMs)
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(2)
    await expectClean(probe)
  }, 180_000)

  it("finds a wallet through window.ethereum without EIP-6963, and says so when there is none", async () => {
    const payment = await world.createPayment()
    const legacy = await checkout(payment, { inject: { announce: false, legacy: true } })
    await view(legacy.page, "connect")
    await legacy.page.getByRole("button", { name: "Browser wallet" }).click()
    await view(legacy.page, "options")
    expect(await legacy.page.locator("label.option").count()).toBe(1)
    await expectClean(legacy)

    const none = await checkout(payment, { wallet: null })
    await view(none.page, "connect")
    expect(await mainText(none.page)).toContain("No browser wallet was found")
    await shoot(none.page, "checkout-no-wallet")
    await expectClean(none)
  }, 120_000)

  it("answers an unknown payment with a not-found page", async () => {
    const probe = await suite.open()
    const response = await probe.page.goto(`${world.baseUrl}/checkout/pay_01UNKNOWN0000000000000000000`)
    expect(response?.status()).toBe(404)
    expect(await mainText(probe.page)).toContain("Payment not found")
    await shoot(probe.page, "checkout-not-found")
    // The only complaint: the document's own 404.
    expect(probe.problems.filter((problem) => !problem.includes("status of 404"))).toEqual([])
  }, 60_000)
})
