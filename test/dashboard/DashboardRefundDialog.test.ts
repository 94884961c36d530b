/**
 * The refund dialog of a payment's page in Chromium against the service (anvil, the worker in
 * process): it shows what was paid, refunded and left; a partial amount is checked in the page; a
 * partial refund then the rest complete on chain; a refund beyond what is left (the page being out
 * of date) is refused with the service's message in one line. The page reads the payment's own
 * refunds, never its merchant's whole refunds export. Screenshots at 375 px and 1280 px go
 * to artifacts/screenshots/dashboard-refund-*.png.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot } from "../checkout/PortalBrowser.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

const refundsText = (page: Page) => page.getByRole("region", { name: "Refunds" }).innerText()

for (const database of testDatabases) {
  describe(`Dashboard refund dialog in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    it("refunds part of a payment, then the rest; more than is left is refused with the service's message", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const paid = await suite.createPayment(partner, world.merchantId, "order-partial-1")
      await suite.pay(paid.paymentId)
      expect(await suite.settled(partner, paid.paymentId)).toBe("succeeded")

      const probe = await suite.open()
      const { page } = probe
      const asked: Array<string> = []
      page.on("request", (request) => asked.push(new URL(request.url()).pathname))
      await suite.signIn(page, world.partnerKey)
      await view(page, "payments")
      await page.goto(`${world.baseUrl}/dashboard/payments/${paid.paymentId}`)
      await view(page, "payment")
      await expect.poll(() => refundsText(page)).toMatch(/Paid\s+\$12\.50\s+Refunded\s+\$0\.00\s+Left to refund\s+\$12\.50[\s\S]*No refund yet/)
      expect(await page.getByLabel("Amount (USD)").isDisabled()).toBe(true)
      await shoot(page, "dashboard-refund-form")

      // Checked in the page: too much, too many decimals, zero.
      const problem = page.locator("#refund-problem")
      await page.getByLabel("Part of it").check()
      const amount = page.getByLabel("Amount (USD)")
      for (const [typed, said] of [["20", "At most $12.50 is left to refund."], ["1.234", "Enter an amount with at most 2 decimals, like 5.00."], ["0", "Enter an amount more than zero."]] as const) {
        await amount.fill(typed)
        await page.getByRole("button", { name: "Refund…" }).click()
        await expect.poll(() => problem.innerText()).toBe(said)
        expect(await amount.getAttribute("aria-invalid")).toBe("true")
      }
      await shoot(page, "dashboard-refund-invalid")

      // A partial refund, confirmed, executed on chain.
      await amount.fill("3.33")
      await page.getByRole("button", { name: "Refund…" }).click()
      const dialog = page.getByRole("dialog")
      expect(await dialog.innerText()).toMatch(/Refund \$3\.33\?[\s\S]*This part of the payment[\s\S]*0x7099/)
      await dialog.getByRole("button", { name: "Refund $3.33" }).click()
      await expect.poll(() => refundsText(page), { timeout: chainTimeoutMs })
        .toMatch(/Refunded\s+\$3\.33\s+Left to refund\s+\$9\.17[\s\S]*\$3\.33\s+3\.33 TUSDC[\s\S]*Completed/)
      await shoot(page, "dashboard-refund-partial")

      // Another refund through the API leaves this page out of date: the service refuses what is no longer left.
      await partner.call("POST", "/v1/refunds", { paymentId: paid.paymentId, amount: { unit: "iso4217/USD", value: "500" } })
      await page.getByLabel("Part of it").check()
      await amount.fill("9.17")
      await page.getByRole("button", { name: "Refund…" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Refund $9.17" }).click()
      await expect.poll(() => problem.innerText()).toMatch(/^Not refunded: .*left.* Reload the page to see the other refunds\.$/)
      expect((await problem.innerText()).split("\n")).toHaveLength(1)
      await shoot(page, "dashboard-refund-refused-left")

      // After a reload: the rest, the default choice.
      await page.reload()
      await view(page, "payment")
      await expect.poll(() => refundsText(page), { timeout: chainTimeoutMs }).toMatch(/Refunded\s+\$8\.33\s+Left to refund\s+\$4\.17/)
      // Refunded in part: the title and the timeline say so, not "Refunded".
      await expect.poll(() => page.locator(".title-row").innerText(), { timeout: chainTimeoutMs }).toContain("Partly refunded")
      expect(await page.locator("ol.timeline").innerText()).toContain("Partly refunded")
      expect(await page.getByLabel("All that is left, $4.17").isChecked()).toBe(true)
      await page.getByRole("button", { name: "Refund…" }).click()
      expect(await page.getByRole("dialog").innerText()).toMatch(/Refund \$4\.17\?[\s\S]*All that is left of the payment/)
      await page.getByRole("dialog").getByRole("button", { name: "Refund $4.17" }).click()
      await expect.poll(() => refundsText(page), { timeout: chainTimeoutMs })
        .toMatch(/Refunded\s+\$12\.50\s+Left to refund\s+\$0\.00[\s\S]*The payment is refunded in full\./)
      await expect.poll(() => refundsText(page), { timeout: chainTimeoutMs }).not.toContain("Pending")
      expect(await page.getByRole("button", { name: "Refund…" }).count()).toBe(0)
      await expect.poll(() => page.locator(".title-row").innerText(), { timeout: chainTimeoutMs }).not.toContain("Partly")
      await shoot(page, "dashboard-refund-full")
      await expect(partner.call("POST", "/v1/refunds", { paymentId: paid.paymentId })).rejects.toThrow(/409.*already_refunded/)
      expect(asked).toContain(`/v1/payments/${paid.paymentId}/refunds`)
      expect(asked.filter((path) => path.startsWith("/v1/exports/"))).toEqual([])
      await probe.close()
    }, chainTimeoutMs * 3)
  })
}
