/**
 * The partner dashboard's merchants and developer views in Chromium against the service as
 * `npm start` runs it (anvil, the worker in process), on PGlite and on PostgreSQL when
 * `TEST_DATABASE_URL` is set: create, find, edit and delete a merchant and set its crypto
 * settlement destination (the API's validation shown); add a webhook endpoint, send it a test
 * event, read its delivery log and redeliver, rotate its secret, choose its events and disable it;
 * create an API key (shown once) and revoke the
 * session's own key, which signs the page out. Screenshots at 375 px and 1280 px go to
 * artifacts/screenshots/dashboard-*.png.
 */
import { Chain } from "@paygate/adapters"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Receiver, startReceiver } from "../support/Receiver.ts"
import { testDatabases } from "../support/TestServer.ts"
import { shoot } from "../checkout/PortalBrowser.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

const mainText = (page: Page) => page.locator("main").innerText()

for (const database of testDatabases) {
  describe(`Dashboard merchants and developers in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)
    let receiver: Receiver
    beforeAll(async () => {
      receiver = await startReceiver()
    })
    afterAll(() => receiver?.close())

    it("creates, finds, edits and deletes a merchant, and adds (with the API's validation), changes and removes its settlement destination", async () => {
      const probe = await suite.open()
      const { page } = probe
      const world = suite.world()
      await suite.signIn(page, world.partnerKey, "/dashboard/merchants")
      await view(page, "merchants")
      expect(await mainText(page)).toContain("Corner Coffee")

      await page.getByLabel("Name", { exact: true }).fill("Harbour Books")
      await page.getByLabel("Email (optional)").fill("owner@harbour.example")
      await page.getByRole("button", { name: "Create merchant" }).click()
      await view(page, "merchant")
      expect(await page.locator("h1").innerText()).toBe("Harbour Books")
      const merchantId = page.url().split("/").at(-1)!
      expect(merchantId).toMatch(/^mer_/)

      // A destination the API refuses: its message, in the page.
      await page.getByLabel("Send to address").fill("0x1234")
      await page.getByRole("button", { name: "Add destination" }).click()
      await expect.poll(() => page.getByRole("alert").innerText()).toMatch(/destination|address|account/i)
      const payee = Chain.anvilAccount(5).address
      await page.getByLabel("Send to address").fill(payee)
      await page.getByRole("button", { name: "Add destination" }).click()
      await expect.poll(() => page.locator(".settlements").count()).toBe(1)
      expect(await page.getByLabel("New destination for TUSDC on Anvil (local)").inputValue()).toBe(payee)
      const detail = await suite.partner().call("GET", `/v1/merchants/${merchantId}`)
      expect(detail.settlements.crypto.map((s: any) => s.destination)).toEqual([`eip155:${world.chain.node.chainId}:${payee}`])
      // Change it, then remove it.
      const other = Chain.anvilAccount(6).address
      await page.getByLabel("New destination for TUSDC on Anvil (local)").fill(other)
      await page.getByRole("button", { name: "Change", exact: true }).click()
      await expect.poll(async () => (await suite.partner().call("GET", `/v1/merchants/${merchantId}/settlements`)).crypto[0]?.destination)
        .toBe(`eip155:${world.chain.node.chainId}:${other}`)
      await page.getByRole("button", { name: "Remove the TUSDC on Anvil (local) destination" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Remove", exact: true }).click()
      await expect.poll(async () => (await suite.partner().call("GET", `/v1/merchants/${merchantId}/settlements`)).crypto).toEqual([])
      await expect.poll(() => page.locator(".settlements").count()).toBe(0)
      await page.getByLabel("Send to address").fill(payee)
      await page.getByRole("button", { name: "Add destination" }).click()
      await expect.poll(() => page.locator(".settlements").count()).toBe(1)

      // The email given at creation is shown; name, email and icon are changed together.
      expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe("owner@harbour.example")
      await page.getByLabel("Name", { exact: true }).fill("Harbour Books & Maps")
      await page.getByLabel("Email", { exact: true }).fill("maps@harbour.example")
      await page.getByLabel("Icon URL").fill("https://harbour.example/icon.png")
      await page.getByRole("button", { name: "Save changes" }).click()
      await expect.poll(() => page.locator("h1").innerText()).toBe("Harbour Books & Maps")
      const saved = await suite.partner().call("GET", `/v1/merchants/${merchantId}`)
      expect([saved.merchantName, saved.merchantEmail, saved.iconUrl]).toEqual(["Harbour Books & Maps", "maps@harbour.example", "https://harbour.example/icon.png"])
      expect(await page.getByLabel("Icon URL").inputValue()).toBe("https://harbour.example/icon.png")
      // An icon the API refuses (not HTTPS): its message in the page, nothing changed.
      await page.getByLabel("Icon URL").fill("http://harbour.example/icon.png")
      await page.getByRole("button", { name: "Save changes" }).click()
      await expect.poll(() => page.locator(".form-problem").getByRole("alert").innerText()).toMatch(/icon/i)
      expect((await suite.partner().call("GET", `/v1/merchants/${merchantId}`)).iconUrl).toBe("https://harbour.example/icon.png")
      await page.getByLabel("Icon URL").fill("")
      await page.getByRole("button", { name: "Save changes" }).click()
      await expect.poll(async () => (await suite.partner().call("GET", `/v1/merchants/${merchantId}`)).iconUrl).toBe(null)
      await shoot(page, "dashboard-merchant")

      await page.getByRole("link", { name: "← Merchants" }).click()
      await view(page, "merchants")
      await page.getByLabel("Search").fill("harbour")
      await page.getByRole("button", { name: "Search" }).click()
      await expect.poll(async () => (await mainText(page)).includes("Corner Coffee")).toBe(false)
      expect(await mainText(page)).toContain("Harbour Books & Maps")
      await page.getByLabel("Search").fill("")
      await page.getByRole("button", { name: "Search" }).click()
      await expect.poll(() => mainText(page)).toContain("Corner Coffee")
      await shoot(page, "dashboard-merchants")

      await page.getByRole("link", { name: "Harbour Books & Maps" }).click()
      await view(page, "merchant")
      await page.getByRole("button", { name: "Delete merchant" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Delete merchant" }).click()
      await view(page, "merchants")
      expect(await mainText(page)).not.toContain("Harbour Books")
      expect((await suite.partner().call("GET", `/v1/merchants/${merchantId}`)).status).toBe("deleted")
      // The 400 of the refused destination.
      await suite.expectClean(probe, [400])
    })

    it("adds a webhook endpoint (secret shown once), sends a test event, reads the delivery log and redelivers, sees the deliveries on the payment, rotates the secret, chooses events and disables it", async () => {
      const world = suite.world()
      const partner = suite.partner()
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey, "/dashboard/developers")
      await view(page, "developers")
      await shoot(page, "dashboard-developers-empty")

      await page.getByLabel("Endpoint URL").fill(receiver.url("/hooks"))
      await page.getByLabel("payment.succeeded").check()
      await page.getByRole("button", { name: "Add endpoint" }).click()
      const secret = page.locator("#news code")
      await expect.poll(() => secret.count()).toBe(1)
      const whsec = await secret.innerText()
      expect(whsec).toMatch(/^whsec_/)
      receiver.expect("/hooks", whsec)
      receiver.behave("/hooks", () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{\"received\":true}" }))
      expect(await mainText(page)).toContain(receiver.url("/hooks"))

      await page.getByRole("button", { name: `Send test event: ${receiver.url("/hooks")}` }).click()
      await expect.poll(() => mainText(page)).toContain("Test event delivered: HTTP 200")
      expect(receiver.on("/hooks").map((r) => [r.verified, r.envelope?.type])).toEqual([[true, "webhook.test"]])

      // A paid payment's succeeded event reaches the endpoint; the log shows it and redelivers it.
      const payment = await suite.createPayment(partner, world.merchantId, "order-hook-1")
      await suite.pay(payment.paymentId)
      await receiver.waitFor(() => receiver.on("/hooks").some((r) => r.envelope?.type === "payment.succeeded"), chainTimeoutMs, "payment.succeeded")
      await page.getByRole("link", { name: "Delivery log" }).click()
      await view(page, "developers")
      const log = page.locator("#delivery-log")
      await expect.poll(() => log.innerText(), { timeout: chainTimeoutMs }).toMatch(/payment\.succeeded[\s\S]*Succeeded[\s\S]*HTTP 200/)
      // The request (its headers and the signed event) and the receiver's response, when opened.
      await log.getByText("Request and response").first().click()
      await expect.poll(() => log.locator("pre").first().innerText()).toContain(payment.paymentId)
      expect(await log.locator("pre").first().innerText()).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/hooks\n[\s\S]*webhook-signature: v1,/)
      expect(await log.locator("pre").nth(1).innerText()).toMatch(/^HTTP 200\ncontent-type: application\/json[\s\S]*\{"received":true\}/)
      await shoot(page, "dashboard-delivery-log")
      await log.getByRole("button", { name: /^Redeliver payment\.succeeded/ }).click()
      await receiver.waitFor(() => receiver.on("/hooks").filter((r) => r.envelope?.type === "payment.succeeded").length === 2, 30_000, "the redelivery")
      await expect.poll(() => log.innerText(), { timeout: 30_000 }).toContain("redelivery")

      // The payment's page lists its deliveries too.
      await page.goto(`${world.baseUrl}/dashboard/payments/${payment.paymentId}`)
      await view(page, "payment")
      expect(await page.getByRole("region", { name: "Webhook deliveries" }).innerText()).toMatch(/payment\.succeeded[\s\S]*HTTP 200/)

      // Rotate the secret: the new one is shown once, and the next webhook is signed with it.
      await page.goto(`${world.baseUrl}/dashboard/developers`)
      await view(page, "developers")
      const endpointName = receiver.url("/hooks")
      await page.getByRole("button", { name: `Rotate secret: ${endpointName}` }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Rotate" }).click()
      await expect.poll(async () => (await secret.count()) === 1 && (await secret.innerText()) !== whsec).toBe(true)
      receiver.expect("/hooks", await secret.innerText())
      await page.getByRole("button", { name: `Send test event: ${endpointName}` }).click()
      await expect.poll(() => receiver.on("/hooks").filter((r) => r.envelope?.type === "webhook.test").map((r) => r.verified)).toEqual([true, true])

      // Choose events, then disable it.
      await page.getByText("Choose events").click()
      const endpointItem = page.locator("li.endpoint")
      await endpointItem.getByLabel("payment.settled").check()
      await endpointItem.getByRole("button", { name: "Save events" }).click()
      await expect.poll(async () => (await partner.call("GET", "/v1/webhooks")).data[0].events).toEqual(["payment.succeeded", "payment.settled"])
      await expect.poll(() => page.locator("li.endpoint").innerText()).toContain("payment.succeeded, payment.settled")
      await page.getByRole("button", { name: `Disable: ${endpointName}` }).click()
      await expect.poll(() => page.locator("li.endpoint .status").innerText()).toBe("Disabled")
      expect((await partner.call("GET", "/v1/webhooks")).data[0].status).toBe("disabled")
      await shoot(page, "dashboard-developers-webhook")
      await suite.expectClean(probe)
    }, chainTimeoutMs * 2)

    it("creates an API key shown once, and revoking the session's own key signs the page out", async () => {
      const owner = await suite.newPartner("Key owner")
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, owner.apiKey, "/dashboard/developers")
      await view(page, "developers")
      await page.getByRole("button", { name: "Create test key" }).click()
      const shown = page.locator("#news code")
      await expect.poll(() => shown.count()).toBe(1)
      const fresh = await shown.innerText()
      expect(fresh).toMatch(/^sk_test_/)
      // The new key works, and is listed by its last characters only.
      expect((await (await fetch(`${suite.world().baseUrl}/v1/merchants`, { headers: { "api-key": fresh } })).json() as any).data).toEqual([])
      expect(await page.locator("table.list").innerText()).toContain(`…${fresh.slice(-4)}`)
      await shoot(page, "dashboard-developers")
      await page.reload()
      await view(page, "developers")
      expect(await page.locator("#news").innerText()).toBe("")

      await page.locator("tr", { hasText: "this session's key" }).getByRole("button", { name: /^Revoke/ }).click()
      expect(await page.getByRole("dialog").innerText()).toContain("revoking it signs you out")
      await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click()
      await view(page, "sign-in")
      expect(await mainText(page)).toContain("Your session has ended")
      await shoot(page, "dashboard-signed-out")
      expect((await fetch(`${suite.world().baseUrl}/v1/merchants`, { headers: { "api-key": owner.apiKey } })).status).toBe(401)
      await suite.expectClean(probe)
    })
  })
}
