/**
 * A held payment (`capture: "manual"`) in the hosted checkout, in Chromium against the service as
 * `npm start` runs it (anvil with its escrow, PGlite, the worker): the buyer is told next to the
 * amount that it is held, not paid, and what comes back by when; pays with the test wallet; and
 * reaches "Payment authorized" with the same date. The merchant then captures through the API and
 * the record becomes `succeeded`. Screenshots of the review and done views at 375 px and 1280 px go
 * to artifacts/screenshots/. Opened again later, the page says what became of the hold (taken, or
 * given back), not what the gateway API's status words would (`succeeded`, `failed`).
 */
import { Chain } from "@paygate/adapters"
import type { Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import { shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

/** Payment to final status, on a small shared machine. */
const settleTimeoutMs = 120_000
const receiver = Chain.anvilAccount(6)
// "Jun 12, 2026, 3:15 PM UTC": the page's date format in the en-US, UTC browser.
const dateTime = /([A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M UTC)/

describe("Held payment in the hosted checkout in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite({ config: { HOLD_POLL_MS: "100", HOLD_PENDING_RECHECK_MS: "200", HOLD_WAITING_RECHECK_MS: "300" } })
  let world: PortalWorld
  beforeAll(async () => {
    world = suite.world()
    // Held payments are offered only in tokens the merchant has a settlement destination for.
    await world.partner("POST", `/v1/merchants/${world.merchantId}/settlements/crypto`, {
      settlements: [{ asset: world.chain.usdcAssetId, destination: `${world.chain.chainId}:${receiver.address}` }]
    })
  })

  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const mainText = (page: Page) => page.locator("main").innerText()
  const untilStatus = async (paymentId: string, status: string) => {
    const deadline = Date.now() + settleTimeoutMs
    for (;;) {
      const current = await world.merchantStatus(paymentId)
      if (current.status === status) return current
      if (Date.now() > deadline) throw new Error(`payment ${paymentId} still ${JSON.stringify(current)}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  /** The date a sentence names, as Unix seconds, checked against the record's capture deadline (the page rounds to the minute). */
  const expectDeadline = (text: string, captureBefore: number) => {
    const named = dateTime.exec(text)?.[1]
    expect(named, text).toBeDefined()
    expect(Math.abs(Date.parse(named!) / 1000 - captureBefore)).toBeLessThan(120)
  }
  const open = async (gatewayUrl: string) => {
    const probe = await suite.open()
    const wallet = new TestWallet(Chain.anvilAccount(1).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
    await wallet.install(probe.page)
    await probe.page.goto(gatewayUrl)
    return { ...probe, wallet }
  }

  it("says the amount is held until the merchant takes it, pays into the escrow, shows it authorized; the merchant captures", async () => {
    const payment = await world.createPayment({ value: "1000", hold: {} })
    const record = await world.partner("GET", `/v1/payments/${payment.paymentId}`)
    const captureBefore = record.hold.captureBefore as number
    const probe = await open(payment.gatewayUrl)
    const { page, wallet } = probe

    await view(page, "connect")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    // The review: one sentence next to the amount.
    const note = await page.locator("#summary .hold-note").innerText()
    expect(note).toMatch(
      /^This amount is held, not paid, until Corner Coffee takes it; anything not taken by .+ comes back to you\.$/
    )
    expectDeadline(note, captureBefore)
    expect(await page.locator("label.option").innerText()).toContain("10.00 TUSDC")
    await shoot(page, "checkout-held-review")

    // Held, not paid: the button says so too.
    await page.getByRole("button", { name: "Authorize 10.00 TUSDC" }).click()
    await view(page, "authorized", settleTimeoutMs)
    const done = await mainText(page)
    expect(done).toMatch(/Payment authorized[\s\S]*Your 10\.00 TUSDC is held for Corner Coffee, not paid yet\. Anything not taken by .+ comes back to you\./)
    expect(done).not.toMatch(/paid to|successful/i)
    expectDeadline(done, captureBefore)
    expect(await page.locator("#summary .hold-note").count()).toBe(0)
    await shoot(page, "checkout-held-authorized")
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    expect(JSON.parse(wallet.callsOf("eth_signTypedData_v4")[0]!.params[1] as string).primaryType).toBe("ReceiveWithAuthorization")
    expect(await untilStatus(payment.paymentId, "authorized")).toMatchObject({ status: "authorized", isFinal: false })

    // Opened again while held: still authorized, not "paid".
    const again = await open(payment.gatewayUrl)
    await view(again.page, "authorized")
    expectDeadline(await mainText(again.page), captureBefore)

    await world.merchant("POST", `/v1/merchant/payment/${payment.paymentId}/capture`, {})
    expect(await untilStatus(payment.paymentId, "succeeded")).toMatchObject({ status: "succeeded", isFinal: true })
    const later = await open(payment.gatewayUrl)
    await view(later.page, "paid")
    expect(await mainText(later.page)).toContain("Corner Coffee has taken this payment.")

    for (const each of [probe, again, later]) {
      expect(each.problems).toEqual([])
      expect(each.requests.filter((url) => !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:"))).toEqual([])
      expect(await storedState(each.page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
    }
  }, 300_000)

  it("a void: the page opened again says the held amount came back, not that the payment failed", async () => {
    const payment = await world.createPayment({ value: "500", hold: {} })
    const { page, problems } = await open(payment.gatewayUrl)
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "options")
    await page.getByRole("button", { name: "Authorize 5.00 TUSDC" }).click()
    await view(page, "authorized", settleTimeoutMs)
    await untilStatus(payment.paymentId, "authorized")
    await world.merchant("POST", `/v1/merchant/payment/${payment.paymentId}/void`)
    await untilStatus(payment.paymentId, "voided")
    const again = await open(payment.gatewayUrl)
    await view(again.page, "returned")
    const text = await mainText(again.page)
    expect(text).toMatch(/The held amount came back to you[\s\S]*Corner Coffee did not take this payment, so the amount held went back to your account\./)
    expect(text).not.toMatch(/failed/i)
    await shoot(again.page, "checkout-held-voided")
    expect([...problems, ...again.problems]).toEqual([])
  }, 300_000)

  it("without voidAtDeadline: the buyer can take back what is not taken after the deadline", async () => {
    const payment = await world.createPayment({ value: "1000", hold: { voidAtDeadline: false } })
    const record = await world.partner("GET", `/v1/payments/${payment.paymentId}`)
    const { page, problems } = await open(payment.gatewayUrl)
    await view(page, "connect")
    const note = await page.locator("#summary .hold-note").innerText()
    expect(note).toMatch(/^This amount is held, not paid, until Corner Coffee takes it; after .+ you can take back anything not taken\.$/)
    expectDeadline(note, record.hold.captureBefore)
    await shoot(page, "checkout-held-connect-reclaim")
    expect(problems).toEqual([])
  }, 120_000)
})
