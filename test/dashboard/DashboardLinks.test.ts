/**
 * Payment links in Chromium against the service as `npm start` runs it (anvil, the worker in
 * process): a partner creates a single-use invoice on the dashboard's Links page, the buyer opens
 * the link's page, presses Pay and pays on the hosted checkout with a browser wallet on the local
 * chain; the link's page then says paid and the Links page shows what it took; a reusable link is
 * deactivated from the list. Screenshots at 375 px and 1280 px: artifacts/screenshots/links-*.png.
 */
import { Chain } from "@paygate/adapters"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot, uiTimeoutMs } from "../checkout/PortalBrowser.ts"
import { TestWallet, testWalletName } from "../checkout/TestWallet.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

for (const database of testDatabases) {
  describe(`Payment links in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    it("creates an invoice link on the dashboard, pays it through the hosted checkout, and then it shows as paid", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey, "/dashboard/links")
      await view(page, "links")
      await page.getByLabel("Title").fill("Website design <draft>")
      await page.getByLabel("Currency").fill("USD")
      await page.getByLabel("Price").selectOption("fixed")
      await page.getByLabel("Amount", { exact: true }).fill("12.50")
      await page.getByLabel("Use").selectOption("single")
      await page.getByLabel("Reference").fill("INV-2026-042")
      await page.getByLabel("Due date (optional)").fill("2026-12-31")
      await page.getByLabel("Buyer email (optional)").fill("buyer@example.com")
      await shoot(page, "links-create")
      await page.getByRole("button", { name: "Create link" }).click()
      const row = page.locator("table.list tbody tr").filter({ hasText: "Website design <draft>" })
      await row.waitFor()
      expect(await row.innerText()).toMatch(/Corner Coffee[\s\S]*\$12\.50[\s\S]*\$0\.00[\s\S]*0 paid of 0 opened[\s\S]*Open/)
      const [link] = (await partner.call("GET", "/v1/links")).data
      expect(link).toMatchObject({ title: "Website design <draft>", usage: "single", invoice: { reference: "INV-2026-042" } })
      await shoot(page, "links-list")

      // The buyer, in a browser of their own with a wallet.
      const buyer = await suite.open()
      const wallet = new TestWallet(Chain.anvilAccount(1).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
      await wallet.install(buyer.page)
      const opened = await buyer.page.goto(link.url)
      expect(opened!.headers()["content-security-policy"]).toContain("form-action 'self'")
      await buyer.page.locator("main[data-view=\"open\"]").waitFor()
      expect(await buyer.page.locator("main").innerText()).toMatch(
        /Website design <draft>[\s\S]*\$?12\.50[\s\S]*INV-2026-042[\s\S]*2026-12-31[\s\S]*buyer@example\.com/
      )
      expect(await buyer.page.locator("img.qr").evaluate((img: any) => img.naturalWidth > 0)).toBe(true)
      await shoot(buyer.page, "links-page")
      await buyer.page.getByRole("button", { name: "Pay" }).click()
      await buyer.page.waitForURL(/\/checkout\/pay_/)
      const paymentId = buyer.page.url().split("/").pop()!
      await view(buyer.page, "connect")
      await buyer.page.getByRole("button", { name: testWalletName }).click()
      await view(buyer.page, "options")
      await buyer.page.getByRole("button", { name: /^Pay / }).click()
      await view(buyer.page, "success", chainTimeoutMs)
      expect((await partner.call("GET", `/v1/payments/${paymentId}`)).linkId).toBe(link.linkId)

      // Back on the link: paid, and nothing more to pay.
      await buyer.page.goto(link.url)
      await buyer.page.locator("main[data-view=\"paid\"]").waitFor()
      expect(await buyer.page.locator("main").innerText()).toContain("This invoice has been paid")
      expect(await buyer.page.getByRole("button", { name: "Pay" }).count()).toBe(0)
      await shoot(buyer.page, "links-paid")

      await page.reload()
      await row.waitFor()
      await expect.poll(() => row.innerText(), { timeout: uiTimeoutMs }).toMatch(/\$12\.50[\s\S]*1 paid of 1 opened[\s\S]*Paid/)
      await shoot(page, "links-list-paid")
      await suite.expectClean(probe)
      await suite.expectClean(buyer)
    })

    it("deactivates a reusable link from the list; its page then says so", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const link = await partner.call("POST", "/v1/links", {
        merchantId: world.merchantId,
        title: "Tip jar",
        openAmount: { unit: "iso4217/USD", minValue: "100", maxValue: "5000" },
        usage: "reusable",
        maxPayments: 50
      })
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey, "/dashboard/links")
      await view(page, "links")
      const row = page.locator("table.list tbody tr").filter({ hasText: "Tip jar" })
      expect(await row.innerText()).toMatch(/Buyer enters from \$1\.00 up to \$50\.00[\s\S]*limit 50[\s\S]*Open/)
      await row.getByRole("button", { name: "Deactivate Tip jar" }).click()
      await expect.poll(() => row.innerText(), { timeout: uiTimeoutMs }).toContain("Inactive")
      const visitor = await suite.open()
      await visitor.page.goto(link.url)
      await visitor.page.locator("main[data-view=\"inactive\"]").waitFor()
      expect(await visitor.page.locator("main").innerText()).toContain("The merchant has turned this payment link off")
      await shoot(visitor.page, "links-inactive")
      await row.getByRole("button", { name: "Activate Tip jar" }).click()
      await expect.poll(() => row.innerText(), { timeout: uiTimeoutMs }).toContain("Open")
      await visitor.page.reload()
      await visitor.page.locator("main[data-view=\"open\"]").waitFor()
      expect(await visitor.page.locator("main").innerText()).toContain("Enter at least 1.00 USD, at most 50.00 USD.")
      await shoot(visitor.page, "links-open-amount")
      await suite.expectClean(probe)
    })
  })
}
