/**
 * The partner dashboard in Chromium against the service as `npm start` runs it (anvil, the worker
 * in process), on PGlite and on PostgreSQL when `TEST_DATABASE_URL` is set: sign in with the
 * secret key (never kept by the page), find a paid payment, refund it and see the refund complete
 * on chain, follow a processing payment to succeeded without a reload, cancel a waiting one; a
 * second partner sees nothing of the first; a change without the CSRF token is refused; sign out.
 * Screenshots of each view at 375 px and 1280 px go to artifacts/screenshots/dashboard-*.png.
 */
import { Chain, CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { type ProbedPage, shoot } from "../checkout/PortalBrowser.ts"
import { chainTimeoutMs, dashboardSuite, explorerUrl, unfoldFilters, view } from "./DashboardWorld.ts"

const mainText = (page: Page) => page.locator("main").innerText()

/** The status of a transaction on the local chain (`0x1`: it succeeded). */
const receiptStatus = async (rpcUrl: string, hash: string) => {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] })
  })
  return ((await response.json()) as { result: { status: string } | null }).result?.status
}

for (const database of testDatabases) {
  describe(`Dashboard payments in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    const expectClean = (probe: ProbedPage, expectedStatuses: ReadonlyArray<number> = []) => suite.expectClean(probe, expectedStatuses)

    it("signs in with the secret key, which the page never keeps; a wrong key is refused in one sentence; sandbox shows Test mode", async () => {
      const probe = await suite.open()
      const { page } = probe
      const response = await page.goto(`${suite.world().baseUrl}/dashboard`)
      const csp = response!.headers()["content-security-policy"]!
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("connect-src 'self'")
      expect(csp).toContain("require-trusted-types-for 'script'")
      expect(csp).not.toContain("unsafe")
      await view(page, "sign-in")
      await shoot(page, "dashboard-sign-in")

      await page.getByLabel("Secret API key").fill("sk_test_notAKeyOfOursAtAllxxxxxxxxxxxxxxxx")
      await page.getByRole("button", { name: "Sign in" }).click()
      await expect.poll(() => page.getByRole("alert").innerText()).toContain("That key was not accepted")
      expect(await page.getByLabel("Secret API key").getAttribute("aria-invalid")).toBe("true")

      const key = suite.world().partnerKey
      await suite.signIn(page, key)
      await view(page, "payments")
      expect(page.url()).toBe(`${suite.world().baseUrl}/dashboard/payments`)
      expect(await page.locator("header").innerText()).toContain("Test mode")
      // The session is an HttpOnly, SameSite=Strict cookie: no script reads it, no storage holds the key.
      const cookies = await probe.context.cookies()
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([["paygate_session", true, "Strict"]])
      expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe("")
      const html = await page.content()
      expect(html).not.toContain(key)
      await expectClean(probe)
    })

    it("finds a paid payment, refunds it after a confirmation, and sees the refund complete on chain; a second refund is refused kindly", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const other = await suite.createPayment(partner, world.merchantId, "order-refund-other")
      const paid = await suite.createPayment(partner, world.merchantId, "order-refund-1")
      await suite.pay(paid.paymentId)
      expect(await suite.settled(partner, paid.paymentId)).toBe("succeeded")
      // The chain watcher records the transfer (a receipt) once it is confirmed.
      await expect.poll(async () => (await partner.call("GET", `/v1/receipts?paymentId=${paid.paymentId}`)).data.map((r: any) => r.outcome), { timeout: chainTimeoutMs })
        .toEqual(["paid"])

      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey)
      await view(page, "payments")
      const rows = page.locator("table.list tbody tr")
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2)
      expect(await mainText(page)).toMatch(/order-refund-1[\s\S]*Corner Coffee[\s\S]*\$12\.50[\s\S]*Succeeded/)
      await shoot(page, "dashboard-payments")

      // Filters: succeeded only, then a search by order reference.
      await unfoldFilters(page)
      await page.getByLabel("Status").selectOption("succeeded")
      await page.getByRole("button", { name: "Apply" }).click()
      await expect.poll(() => page.url()).toContain("status=succeeded")
      await expect.poll(async () => (await mainText(page)).includes(other.referenceId)).toBe(false)
      await unfoldFilters(page)
      await page.getByLabel("Search").fill("order-refund-1")
      await page.getByRole("button", { name: "Apply" }).click()
      await expect.poll(() => rows.count()).toBe(1)
      expect(await page.locator(".summary-line").innerText()).toContain("Succeeded: $12.50")

      await page.getByRole("link", { name: "order-refund-1" }).click()
      await view(page, "payment")
      expect(page.url()).toBe(`${world.baseUrl}/dashboard/payments/${paid.paymentId}`)
      const text = await mainText(page)
      expect(text).toMatch(/Paid with\s+12\.50 TUSDC on Anvil/)
      expect(text).toContain("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
      expect(text).toMatch(/Created[\s\S]*Processing[\s\S]*Succeeded/)
      // Corner Coffee has no settlement destination: nothing will settle, and the page says so.
      expect(text).toMatch(/Settlement\s+None: the merchant has no settlement destination for this token/)
      expect(await page.getByRole("region", { name: "Timeline" }).innerText()).not.toContain("Settled")
      expect(await page.getByRole("region", { name: "Transfers received" }).innerText()).toMatch(/12\.50 TUSDC on Anvil[\s\S]*Paid the amount[\s\S]*0x7099/)
      await shoot(page, "dashboard-payment")
      // Copy the payment id.
      await probe.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.baseUrl })
      await page.getByRole("button", { name: "Copy payment id" }).click()
      // The page writes the clipboard after the click returns.
      await expect.poll(() => page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(paid.paymentId)
      await expect.poll(() => page.locator("#announcer").innerText()).toBe("Copied the payment id.")

      // A second tab on the same payment, opened before the refund (a paid payment without a
      // settlement destination has nothing under way, so this tab does not reload by itself).
      const second = await suite.open()
      await suite.signIn(second.page, world.partnerKey, `/dashboard/payments/${paid.paymentId}`)
      await view(second.page, "payment")
      expect(await second.page.getByRole("button", { name: "Refund…" }).count()).toBe(1)

      await page.getByRole("button", { name: "Refund…" }).click()
      const dialog = page.getByRole("dialog")
      expect(await dialog.innerText()).toMatch(/Refund \$12\.50\?[\s\S]*All that is left of the payment[\s\S]*0x7099/)
      await shoot(page, "dashboard-refund-confirm")
      await dialog.getByRole("button", { name: "Refund $12.50" }).click()
      // The worker sends it on chain; the page follows it without a reload.
      await expect.poll(() => mainText(page), { timeout: chainTimeoutMs }).toMatch(/Refund\s+Refunded/)
      const record = await partner.call("GET", `/v1/payments/${paid.paymentId}`)
      expect(record.refund.status).toBe("completed")
      expect(await receiptStatus(world.chain.node.rpcUrl, record.refund.txHash)).toBe("0x1")
      // Both transactions link to the network's block explorer.
      const transactions = page.getByRole("region", { name: "Transactions" }).getByRole("link")
      expect(await transactions.evaluateAll((links) => links.map((a) => (a as any).href))).toEqual([
        `${explorerUrl}/tx/${record.transaction.hash}`,
        `${explorerUrl}/tx/${record.refund.txHash}`
      ])
      expect(await page.getByRole("button", { name: "Refund…" }).count()).toBe(0)
      await shoot(page, "dashboard-payment-refunded")

      // A second refund from the other tab is the API's 409, explained on the page in one sentence.
      await second.page.getByRole("button", { name: "Refund…" }).click()
      await second.page.getByRole("dialog").getByRole("button", { name: "Refund $12.50" }).click()
      const refused = second.page.locator("#refund-problem").getByRole("alert")
      await expect.poll(() => refused.innerText()).toMatch(/^Not refunded: .* Reload the page to see the other refunds\.$/)
      await shoot(second.page, "dashboard-refund-refused")
      expect((await partner.call("GET", `/v1/payments/${paid.paymentId}`)).refund.status).toBe("completed")
      await expectClean(second, [409])
      await expectClean(probe)
    }, chainTimeoutMs * 2)

    it("shows a payment settled to its merchant's destination: the Settled step, the settlement's state and its transaction", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const shop = await partner.call("POST", "/v1/merchants", { merchantName: "Settling Shop" }, suite.idempotency())
      const payee = Chain.anvilAccount(7).address
      await partner.call("POST", `/v1/merchants/${shop.merchantId}/settlements/crypto`, {
        settlements: [{ asset: world.chain.usdcAssetId, destination: `eip155:${world.chain.node.chainId}:${payee}` }]
      }, suite.idempotency())
      const paid = await suite.createPayment(partner, shop.merchantId, "order-settle-1")
      await suite.pay(paid.paymentId)
      expect(await suite.settled(partner, paid.paymentId)).toBe("succeeded")

      const probe = await suite.open()
      const { page } = probe
      // The worker begins a settlement once the chain watcher saw the transfer, a moment after the
      // payment succeeded. Until released, the page reads the payment as in that moment.
      let settlementBegun = false
      await page.route(`**/v1/payments/${paid.paymentId}`, async (route) => {
        const response = await route.fetch()
        const record = await response.json()
        await route.fulfill({ response, json: settlementBegun ? record : { ...record, settlement: null } })
      })
      await suite.signIn(page, world.partnerKey, `/dashboard/payments/${paid.paymentId}`)
      await view(page, "payment")
      const summary = page.getByRole("region", { name: "Summary" })
      expect(await summary.innerText()).toMatch(/Settlement\s+Not settled yet/)
      settlementBegun = true
      // The page follows the settlement due, then under way, without a reload.
      await expect.poll(() => summary.innerText(), { timeout: chainTimeoutMs }).toMatch(/Settlement\s+Completed/)
      const record = await partner.call("GET", `/v1/payments/${paid.paymentId}`)
      expect(record.settlement.status).toBe("completed")
      expect(await receiptStatus(world.chain.node.rpcUrl, record.settlement.txHash)).toBe("0x1")
      expect(await page.getByRole("region", { name: "Timeline" }).innerText()).toMatch(/Created[\s\S]*Processing[\s\S]*Succeeded[\s\S]*Settled/)
      expect(await page.locator(".timeline li", { hasText: "Settled" }).getAttribute("class")).toContain("step-done")
      const links = page.getByRole("region", { name: "Transactions" }).getByRole("link")
      expect(await links.evaluateAll((all) => all.map((a) => (a as any).href))).toEqual([
        `${explorerUrl}/tx/${record.transaction.hash}`,
        `${explorerUrl}/tx/${record.settlement.txHash}`
      ])
      await shoot(page, "dashboard-payment-settled")
      await expectClean(probe)
    }, chainTimeoutMs * 2)

    it("follows payments to succeeded without a reload, on the list and on a payment's page, and cancels a waiting one", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const listed = await suite.createPayment(partner, world.merchantId, "order-list-1")
      const probe = await suite.open()
      const { page } = probe
      // On the list: the row turns Succeeded, and is announced.
      await suite.signIn(page, world.partnerKey)
      await view(page, "payments")
      const row = page.locator("tr", { hasText: "order-list-1" })
      expect(await row.locator(".status").innerText()).toBe("Waiting for buyer")
      await suite.pay(listed.paymentId)
      await expect.poll(() => row.locator(".status").innerText(), { timeout: chainTimeoutMs }).toBe("Succeeded")
      await expect.poll(() => page.locator("#announcer").innerText()).toContain("order-list-1: Succeeded")

      // On the payment's page: its status, timeline and actions follow.
      const waiting = await suite.createPayment(partner, world.merchantId, "order-live-1")
      await page.goto(`${world.baseUrl}/dashboard/payments/${waiting.paymentId}`)
      await view(page, "payment")
      expect(await page.locator("#payment-status").innerText()).toBe("Waiting for buyer")
      await shoot(page, "dashboard-payment-waiting")
      await page.evaluate(() => ((globalThis as any).loadedOnce = true))
      await suite.pay(waiting.paymentId)
      await expect.poll(() => page.locator("#payment-status").innerText(), { timeout: chainTimeoutMs }).toBe("Succeeded")
      // Still the same page load.
      expect(await page.evaluate(() => (globalThis as any).loadedOnce)).toBe(true)
      // Announced on the next frame after the status changes.
      await expect.poll(() => page.locator("#announcer").innerText()).toContain("Payment succeeded")

      const toCancel = await suite.createPayment(partner, world.merchantId, "order-cancel-1")
      await page.goto(`${world.baseUrl}/dashboard/payments/${toCancel.paymentId}`)
      await view(page, "payment")
      await page.getByRole("button", { name: "Cancel payment" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Cancel payment" }).click()
      await expect.poll(() => page.locator("#payment-status").innerText()).toBe("Cancelled")
      // It never processed: the timeline goes from created to cancelled.
      const story = await page.getByRole("region", { name: "Timeline" }).innerText()
      expect(story).toMatch(/Created[\s\S]*Cancelled/)
      expect(story).not.toContain("Processing")
      expect((await partner.call("GET", `/v1/payments/${toCancel.paymentId}`)).status).toBe("cancelled")
      await expectClean(probe)
    }, chainTimeoutMs * 2)

    it("filters by merchant and creation date, pages with the cursor, opens a payment by its id, and shows a live key's dashboard as Live", async () => {
      const world = suite.world()
      const owner = await suite.newPartner("Busy partner")
      const shop = await owner.call("POST", "/v1/merchants", { merchantName: "Shop A" }, suite.idempotency())
      const kiosk = await owner.call("POST", "/v1/merchants", { merchantName: "Kiosk B" }, suite.idempotency())
      const kioskPayment = await suite.createPayment(owner, kiosk.merchantId, "kiosk-1")
      for (let i = 1; i <= 21; i++) await suite.createPayment(owner, shop.merchantId, `shop-${i}`)
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, owner.apiKey)
      await view(page, "payments")
      const rows = page.locator("table.list tbody tr")
      expect(await rows.count()).toBe(20)
      expect(await page.locator(".summary-line").innerText()).toBe("20 payments on this page")
      await page.getByRole("link", { name: "Older payments" }).click()
      await expect.poll(() => rows.count()).toBe(2)
      expect(await page.locator("table.list").innerText()).toMatch(/shop-1[\s\S]*kiosk-1/)
      await page.getByRole("link", { name: "First page" }).click()
      await expect.poll(() => rows.count()).toBe(20)

      await unfoldFilters(page)
      await page.getByLabel("Merchant").selectOption({ label: "Kiosk B" })
      await page.getByRole("button", { name: "Apply" }).click()
      await expect.poll(() => rows.count()).toBe(1)
      expect(await page.locator("table.list").innerText()).toContain("kiosk-1")
      // Created before today: none.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
      await unfoldFilters(page)
      await page.getByLabel("Created to").fill(yesterday)
      await page.getByRole("button", { name: "Apply" }).click()
      await expect.poll(() => page.locator(".summary-line").innerText()).toBe("No payment matches these filters.")
      // A payment id in the search box opens that payment.
      await unfoldFilters(page)
      await page.getByLabel("Search").fill(kioskPayment.paymentId)
      await page.getByRole("button", { name: "Apply" }).click()
      await view(page, "payment")
      expect(page.url()).toBe(`${world.baseUrl}/dashboard/payments/${kioskPayment.paymentId}`)

      // A live key of the same partner: the same pages, marked Live, without the test-mode stripe.
      const live = await world.admin(Effect.gen(function*() {
        return (yield* (yield* CredentialAdmin).createApiKey({ kind: "partner", partnerId: owner.partnerId, mode: "live" })).apiKey
      }))
      const liveProbe = await suite.open()
      await suite.signIn(liveProbe.page, live)
      await view(liveProbe.page, "payments")
      const header = await liveProbe.page.locator("header").innerText()
      expect(header).toContain("Live")
      expect(header).not.toContain("Test mode")
      // Live and sandbox data are apart: the sandbox payments are not here.
      expect(await liveProbe.page.locator(".summary-line").innerText()).toContain("No payments yet")
      await shoot(liveProbe.page, "dashboard-live-empty")
      await expectClean(probe)
      await expectClean(liveProbe)
    })

    it("works by keyboard: sign in with Enter, skip link, focus on each view's heading, a dialog that Escape closes", async () => {
      const world = suite.world()
      const waiting = await suite.createPayment(suite.partner(), world.merchantId, "order-keys-1")
      const probe = await suite.open()
      const { page } = probe
      const focused = () => page.evaluate(() => {
        const active = (globalThis as any).document.activeElement
        return { tag: active?.tagName as string, text: (active?.textContent ?? "").trim() as string, inDialog: active?.closest("dialog") !== null }
      })
      await page.goto(`${world.baseUrl}/dashboard/payments`)
      await view(page, "sign-in")
      // The key field has the focus: type and press Enter.
      await page.keyboard.type(world.partnerKey)
      await page.keyboard.press("Enter")
      await view(page, "payments")
      expect(await page.getByRole("banner").count()).toBe(1)
      expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Payments" }).getAttribute("aria-current")).toBe("page")
      // On a fresh load the first Tab reaches the skip link.
      await page.reload()
      await view(page, "payments")
      await page.keyboard.press("Tab")
      expect((await focused()).text).toBe("Skip to content")

      await page.getByRole("link", { name: "order-keys-1" }).focus()
      await page.keyboard.press("Enter")
      await view(page, "payment")
      expect(await focused()).toMatchObject({ tag: "H1", text: "$12.50 · order-keys-1" })
      await page.getByRole("button", { name: "Cancel payment" }).focus()
      await page.keyboard.press("Enter")
      await page.getByRole("dialog").waitFor()
      expect((await focused()).inDialog).toBe(true)
      await page.keyboard.press("Escape")
      await page.getByRole("dialog").waitFor({ state: "detached" })
      expect((await focused()).text).toBe("Cancel payment")
      expect((await suite.partner().call("GET", `/v1/payments/${waiting.paymentId}`)).status).toBe("requires_action")
      // Back goes to the list, focus on its heading.
      await page.goBack()
      await view(page, "payments")
      expect(await focused()).toMatchObject({ tag: "H1", text: "Payments" })
      await expectClean(probe)
    })

    it("a second partner sees nothing of the first: not in lists, not by address", async () => {
      const first = suite.partner()
      const world = suite.world()
      const payment = await suite.createPayment(first, world.merchantId, "order-private-1")
      const second = await suite.newPartner("Second partner")
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, second.apiKey)
      await view(page, "payments")
      expect(await mainText(page)).toContain("No payments yet")
      await page.goto(`${world.baseUrl}/dashboard/payments/${payment.paymentId}`)
      await view(page, "payment-not-found")
      await shoot(page, "dashboard-not-found")
      await page.goto(`${world.baseUrl}/dashboard/merchants/${world.merchantId}`)
      await view(page, "merchant-not-found")
      await shoot(page, "dashboard-merchant-not-found")
      await page.goto(`${world.baseUrl}/dashboard/merchants`)
      await view(page, "merchants")
      expect(await mainText(page)).not.toContain("Corner Coffee")
      await page.goto(`${world.baseUrl}/dashboard/developers`)
      await view(page, "developers")
      expect(await mainText(page)).not.toContain(world.partnerKey.slice(-4))
      // The 404s of the first partner's payment and merchant.
      await expectClean(probe, [404])
    })

    it("refuses a change without the CSRF token, and signing out ends the session", async () => {
      const world = suite.world()
      const payment = await suite.createPayment(suite.partner(), world.merchantId, "order-csrf-1")
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey)
      await view(page, "payments")
      // The page's own origin, with its cookie, but without the header: refused, nothing changed.
      const withoutToken = await page.evaluate(async (id) => {
        const response = await fetch(`/v1/payments/${id}/cancel`, { method: "POST", credentials: "same-origin" })
        return { status: response.status, body: await response.json() as { code: string } }
      }, payment.paymentId)
      expect(withoutToken.status).toBe(403)
      expect(withoutToken.body.code).toBe("forbidden")
      expect((await suite.partner().call("GET", `/v1/payments/${payment.paymentId}`)).status).toBe("requires_action")

      await page.getByRole("button", { name: "Sign out" }).click()
      await view(page, "sign-in")
      expect(await mainText(page)).toContain("You are signed out.")
      const after = await page.evaluate(async () => (await fetch("/v1/payments", { credentials: "same-origin" })).status)
      expect(after).toBe(401)
      // The 403 of the request without the token.
      await expectClean(probe, [403])
    })
  })
}
