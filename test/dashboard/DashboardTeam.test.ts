/**
 * The dashboard's team in Chromium against the service as `npm start` runs it: the owner (signed
 * in with the key) invites a viewer and is shown the one-time link (no mail is sent); the viewer
 * opens it in another browser, chooses a password and is signed in; the viewer asks for a refund
 * of a paid payment and the server refuses it (the page does not hide the button: the role is
 * checked on the server). Screenshots at 375 px and 1280 px: artifacts/screenshots/dashboard-team-*.png.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot } from "../checkout/PortalBrowser.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

const mainText = (page: Page) => page.locator("main").innerText()

for (const database of testDatabases) {
  describe(`Dashboard team in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    it("an owner invites a viewer by link; the viewer joins, signs in and is refused a refund by the server", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const paid = await suite.createPayment(partner, world.merchantId, "order-team-1")
      await suite.pay(paid.paymentId)
      expect(await suite.settled(partner, paid.paymentId)).toBe("succeeded")

      const owner = await suite.open()
      await suite.signIn(owner.page, world.partnerKey, "/dashboard/team")
      await view(owner.page, "team")
      const email = `viewer-${Date.now()}@example.com`
      await owner.page.getByLabel("Email").fill(email)
      await owner.page.getByLabel("Role", { exact: true }).selectOption("viewer")
      await owner.page.getByRole("button", { name: "Create invitation link" }).click()
      await expect.poll(() => owner.page.locator("#news").innerText()).toContain("No email is sent")
      const link = /https?:\/\/\S+\/dashboard\/invitation#[A-Za-z0-9_-]{43}/.exec(await owner.page.locator("#news").innerText())?.[0]
      expect(link).toBeDefined()
      await shoot(owner.page, "dashboard-team-invited")

      const viewer = await suite.open()
      await viewer.page.goto(link!)
      await view(viewer.page, "invitation")
      // The token leaves the address bar once read.
      expect(viewer.page.url()).toBe(`${world.baseUrl}/dashboard/invitation`)
      await shoot(viewer.page, "dashboard-team-invitation")
      await viewer.page.getByLabel("Choose a password").fill("a long viewer password")
      await viewer.page.getByRole("button", { name: "Accept invitation" }).click()
      await view(viewer.page, "home")
      expect(await viewer.page.locator("header").innerText()).toContain("viewer")

      await viewer.page.goto(`${world.baseUrl}/dashboard/payments/${paid.paymentId}`)
      await view(viewer.page, "payment")
      await viewer.page.getByRole("button", { name: "Refund…" }).click()
      await viewer.page.getByRole("dialog").getByRole("button", { name: /^Refund \$/ }).click()
      await expect.poll(() => mainText(viewer.page), { timeout: chainTimeoutMs }).toContain("Your role (viewer) does not allow this; ask an owner of the team.")
      await shoot(viewer.page, "dashboard-team-refund-refused")
      expect((await partner.call("GET", `/v1/payments/${paid.paymentId}`)).refund).toBeNull()

      // The owner sees the viewer in the team and the invitation in the audit log; no refund there.
      await owner.page.reload()
      await view(owner.page, "team")
      const team = await mainText(owner.page)
      expect(team).toContain(email)
      expect(team).toMatch(/team\.accept/)
      expect(team).not.toMatch(/refunds\.create/)
      await shoot(owner.page, "dashboard-team-audit")
      await suite.expectClean(viewer, [403])
      await suite.expectClean(owner)
    })
  })
}
