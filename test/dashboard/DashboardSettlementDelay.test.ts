/**
 * The merchant page in Chromium, signed in with a live key: a settlement destination added within
 * its delay (a day for live merchants by default) shows when it becomes usable and that payments
 * stay at the collection address until then; once usable, the notice is gone. Screenshots at
 * 375 px and 1280 px go to artifacts/screenshots/dashboard-settlement-waiting-*.png. Its add form offers
 * only tokens of real networks: here none (the local chain is a test network).
 */
import { CredentialAdmin } from "@paygate/adapters"
import type { PartnerId } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot } from "../checkout/PortalBrowser.ts"
import { dashboardSuite, view } from "./DashboardWorld.ts"

// USDC on Ethereum: a chain this service does not serve, so a live merchant may name it.
const usdcEthereum = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const payee = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"

for (const database of testDatabases) {
  describe(`Dashboard settlement destination delay in Chromium (${database.name})`, () => {
    const suite = dashboardSuite(database)

    it("a destination not usable yet says from when, and that payments stay at the collection address until then", async () => {
      const world = suite.world()
      const apiKey = await world.admin(Effect.gen(function*() {
        const admin = yield* CredentialAdmin
        const partner = yield* admin.createPartner({ name: "Live partner" })
        return (yield* admin.createApiKey({ kind: "partner", partnerId: partner.id as PartnerId, mode: "live" })).apiKey
      }))
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${world.baseUrl}${path}`, {
          method,
          headers: { "api-key": apiKey, "content-type": "application/json", ...suite.idempotency() },
          body: JSON.stringify(body)
        }).then((r) => r.json() as Promise<any>)
      const merchant = await call("POST", "/v1/merchants", { merchantName: "Live Shop" })
      const registered = await call("POST", `/v1/merchants/${merchant.merchantId}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: payee }]
      })
      const usableFrom = registered.crypto[0].usableFrom as number
      expect(usableFrom - registered.crypto[0].createdAt).toBe(86_400)

      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, apiKey, `/dashboard/merchants/${merchant.merchantId}`)
      await view(page, "merchant")
      const notice = page.getByRole("region", { name: "Crypto settlement" }).getByRole("status")
      await expect.poll(() => notice.innerText()).toMatch(/^Usable from .+ — payments until then stay at the collection address\.$/)
      // The time is the browser's local rendering of usableFrom.
      expect(await notice.locator("time").getAttribute("datetime")).toBe(new Date(usableFrom * 1000).toISOString())
      await shoot(page, "dashboard-settlement-waiting")
      // A live merchant is offered no token of a test network (the local chain's) to settle.
      expect(await page.getByRole("button", { name: "Add destination" }).count()).toBe(0)

      // Once usable, no notice.
      await world.database(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE crypto_settlements SET usable_from = created_at WHERE merchant_id = ${merchant.merchantId}`
      }))
      await page.reload()
      await view(page, "merchant")
      expect(await page.getByRole("region", { name: "Crypto settlement" }).innerText()).not.toContain("Usable from")
      await suite.expectClean(probe)
    })
  })
}
