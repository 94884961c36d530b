/**
 * Subscriptions on the dashboard in Chromium against the service as `npm start` runs it (anvil, the
 * worker in process): a partner creates plans through the form (a currency one with a trial and a
 * term, a token one until cancelled), copies a checkout link and deactivates a plan; subscriptions
 * seeded in the database (the dashboard has no buyer flow: `SqlSubscriptionRepository`, on plans
 * made through the API) are listed and filtered by plan, one is opened with its payments and
 * cancelled. Screenshots at 375 px and 1280 px: artifacts/screenshots/subscriptions-*.png.
 */
import { Chain, SqlSubscriptionRepository } from "@paygate/adapters"
import {
  type MerchantId,
  type PartnerId,
  type PlanId,
  SignedPermit,
  Subscription,
  SubscriptionCharge,
  type SubscriptionId,
  SubscriptionTerms
} from "@paygate/domain"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot, uiTimeoutMs } from "../checkout/PortalBrowser.ts"
import { dashboardSuite, explorerUrl, view } from "./DashboardWorld.ts"

const day = 86_400
const month = 30 * day

/** A seeded subscription: its state, and its charges by period (from the first). */
interface Seed {
  readonly plan: { readonly planId: string; readonly merchantId: string; readonly periodSeconds: number; readonly periods: number | null }
  readonly payer: number
  readonly amount: bigint
  /** When its first period began, Unix seconds. */
  readonly start: number
  readonly status: Subscription["status"]
  readonly endedReason?: Subscription["endedReason"]
  readonly cancelledBy?: Subscription["cancelledBy"]
  readonly charges: ReadonlyArray<{ readonly status: SubscriptionCharge["status"]; readonly failedAttempts?: number; readonly nextAttemptAt?: number; readonly txHash?: string; readonly lastError?: string }>
  /** When the worker looks at it next, Unix seconds: after the test for those it must leave alone. */
  readonly nextCheck: number
}

for (const database of testDatabases) {
  describe(`Subscriptions in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    /** Stores `seed` as the subscription contract and the worker would have left it; answers its id. */
    const seedSubscription = (partnerId: PartnerId, seed: Seed) => {
      const world = suite.world()
      const chainId = `eip155:${world.chain.node.chainId}`
      const salt = `0x${randomBytes(32).toString("hex")}`
      const id = `sub_${salt.slice(2, 34)}` as SubscriptionId
      return world.database(Effect.gen(function*() {
        const repository = yield* SqlSubscriptionRepository.make
        const created = (seed.start - day) * 1000
        let subscription = new Subscription({
          id,
          planId: seed.plan.planId as PlanId,
          partnerId,
          merchantId: seed.plan.merchantId as MerchantId,
          mode: "sandbox",
          terms: new SubscriptionTerms({
            payer: `${chainId}:${Chain.anvilAccount(seed.payer).address}`,
            receiver: `${chainId}:${Chain.anvilAccount(5).address}`,
            asset: world.chain.usdcAssetId,
            amountPerPeriod: seed.amount,
            periodSeconds: seed.plan.periodSeconds,
            start: seed.start,
            periods: seed.plan.periods,
            salt
          }),
          permit: new SignedPermit({ signature: `0x${"11".repeat(65)}`, sigDeadline: seed.start }),
          subscribeTx: `0x${randomBytes(32).toString("hex")}`,
          status: seed.status,
          endedReason: seed.endedReason ?? null,
          cancelledBy: seed.cancelledBy ?? null,
          cancelTx: null,
          // Stopped ones are closed in the contract too: the worker has nothing left to do with them.
          closedOnChain: seed.status === "cancelled" || seed.status === "ended",
          replacedBy: null,
          endPeriod: null,
          skipUntil: null,
          nextCheckAt: seed.nextCheck * 1000,
          version: 1,
          createdAt: created,
          updatedAt: created
        })
        expect(yield* repository.insert(subscription)).toBe(true)
        for (const [periodIndex, charge] of seed.charges.entries()) {
          subscription = new Subscription({ ...subscription, version: subscription.version + 1 })
          const committed = yield* repository.commit({
            subscription,
            charge: new SubscriptionCharge({
              subscriptionId: id,
              periodIndex,
              amount: seed.amount,
              status: charge.status,
              failedAttempts: charge.failedAttempts ?? 0,
              nextAttemptAt: (charge.nextAttemptAt ?? seed.start + periodIndex * seed.plan.periodSeconds) * 1000,
              txHash: charge.txHash ?? null,
              lastError: charge.lastError ?? null,
              version: 1,
              updatedAt: created
            })
          })
          expect(committed).toBe(true)
        }
        return id
      }))
    }

    it("creates a currency plan and a token plan through the form, copies a checkout link and deactivates a plan", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const probe = await suite.open()
      const { page } = probe
      await probe.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.baseUrl })
      await suite.signIn(page, world.partnerKey, "/dashboard/subscriptions/plans")
      await view(page, "plans")
      expect(await page.locator("main").innerText()).toContain("No plans yet.")

      // The API's rules, its message in one line.
      await page.getByRole("button", { name: "Create plan" }).click()
      const problem = page.locator(".form-problem [role=alert]")
      await expect.poll(() => problem.innerText(), { timeout: uiTimeoutMs }).toBe("name must be 1 to 200 characters of text.")

      await page.getByLabel("Name").fill("Coffee club <beans>")
      await page.getByLabel("Price in").selectOption({ label: "A currency" })
      await page.getByLabel("Currency").fill("USD")
      await page.getByLabel("Amount").fill("10.00")
      await page.getByLabel("Charged every", { exact: true }).fill("1")
      await page.getByLabel("Charged every (unit)").selectOption("month")
      await page.getByLabel("Free trial (optional)", { exact: true }).fill("1")
      await page.getByLabel("Free trial (optional) (unit)").selectOption("week")
      await page.getByLabel("Number of payments (optional)").fill("12")
      await shoot(page, "subscriptions-plan-create")
      await page.getByRole("button", { name: "Create plan" }).click()
      const monthly = page.locator("table.list tbody tr").filter({ hasText: "Coffee club <beans>" })
      await monthly.waitFor()
      expect(await monthly.innerText()).toMatch(/Corner Coffee[\s\S]*\$10\.00 \/ month[\s\S]*12 payments \(12 months\)[\s\S]*1 week free trial[\s\S]*Active/)
      expect(await problem.count()).toBe(0)

      await page.getByLabel("Name").fill("Weekly beans")
      await page.getByLabel("Price in").selectOption({ label: "TUSDC on Anvil (local)" })
      expect(await page.getByLabel("Currency").isVisible()).toBe(false)
      await page.getByLabel("Amount").fill("5")
      await page.getByLabel("Charged every", { exact: true }).fill("2")
      await page.getByLabel("Charged every (unit)").selectOption("week")
      await page.getByRole("button", { name: "Create plan" }).click()
      const weekly = page.locator("table.list tbody tr").filter({ hasText: "Weekly beans" })
      await weekly.waitFor()
      expect(await weekly.innerText()).toMatch(/5\.00 TUSDC every 2 weeks[\s\S]*Until cancelled[\s\S]*Active/)

      const plans = (await partner.call("GET", "/v1/plans")).data
      expect(plans).toMatchObject([
        { name: "Weekly beans", amount: { unit: `caip19/${world.chain.usdcAssetId}`, value: "5000000" }, periodSeconds: 14 * day, trialSeconds: 0, periods: null },
        { name: "Coffee club <beans>", amount: { unit: "iso4217/USD", value: "1000" }, periodSeconds: month, trialSeconds: 7 * day, periods: 12, active: true }
      ])
      const club = plans[1]
      expect(await monthly.getByRole("link", { name: "Coffee club <beans>" }).getAttribute("href")).toBe(club.url)
      await monthly.getByRole("button", { name: "Copy checkout link" }).click()
      await expect.poll(() => page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(club.url)
      expect(await monthly.getByRole("link", { name: "Subscriptions" }).getAttribute("href")).toBe(`/dashboard/subscriptions?plan=${club.planId}`)

      await monthly.getByRole("button", { name: "Deactivate Coffee club <beans>" }).click()
      await expect.poll(() => monthly.innerText(), { timeout: uiTimeoutMs }).toContain("Inactive")
      await expect.poll(() => page.locator("#announcer").innerText()).toBe("Coffee club <beans> deactivated.")
      expect((await partner.call("GET", `/v1/plans/${club.planId}`)).active).toBe(false)
      await shoot(page, "subscriptions-plans")
      // The empty form's refusal.
      await suite.expectClean(probe, [400])
    })

    it("lists seeded subscriptions by plan, shows one with its payments, and cancels it", async () => {
      const world = suite.world()
      const partner = await suite.newPartner("Bean partner")
      const merchant = await partner.call("POST", "/v1/merchants", { merchantName: "Bean Roasters" }, suite.idempotency())
      const club = await partner.call("POST", "/v1/plans", {
        merchantId: merchant.merchantId,
        name: "Coffee club",
        amount: { unit: "iso4217/USD", value: "1000" },
        periodSeconds: month,
        periods: 12
      })
      const weekly = await partner.call("POST", "/v1/plans", {
        merchantId: merchant.merchantId,
        name: "Weekly beans",
        amount: { unit: `caip19/${world.chain.usdcAssetId}`, value: "5000000" },
        periodSeconds: 7 * day
      })
      const now = Math.floor(Date.now() / 1000)
      const later = now + 30 * day
      const refused = "the vault refuses charge: TRANSFER_FROM_FAILED"
      const chargeTx = `0x${"ab".repeat(32)}`
      await seedSubscription(partner.partnerId, {
        plan: club, payer: 2, amount: 10_000_000n, start: now - 100 * day, status: "ended", endedReason: "unpaid", nextCheck: later,
        charges: [{ status: "succeeded", txHash: `0x${"cd".repeat(32)}` }, { status: "succeeded", txHash: `0x${"ef".repeat(32)}` }, { status: "failed", failedAttempts: 3, lastError: refused }]
      })
      // Its third period begins in 10 days: the worker leaves it alone until then.
      const active = await seedSubscription(partner.partnerId, {
        plan: club, payer: 1, amount: 10_000_000n, start: now - 50 * day, status: "active", nextCheck: now + 10 * day,
        charges: [{ status: "succeeded", txHash: chargeTx }, { status: "failed", failedAttempts: 1, lastError: "the period's window passed before the service charged it" }]
      })
      await seedSubscription(partner.partnerId, {
        plan: weekly, payer: 3, amount: 5_000_000n, start: now - 20 * day, status: "cancelled", cancelledBy: "payer", nextCheck: later,
        charges: [{ status: "succeeded", txHash: `0x${"12".repeat(32)}` }, { status: "succeeded", txHash: `0x${"34".repeat(32)}` }]
      })
      const retryAt = now + 2 * day
      await seedSubscription(partner.partnerId, {
        plan: weekly, payer: 4, amount: 5_000_000n, start: now - 3 * day, status: "past_due", nextCheck: retryAt,
        charges: [{ status: "pending", failedAttempts: 1, nextAttemptAt: retryAt, lastError: refused }]
      })

      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, partner.apiKey, "/dashboard/subscriptions")
      await view(page, "subscriptions")
      const rows = page.locator("table.list tbody tr")
      const rowOf = (account: number) => rows.filter({ has: page.locator(`a[title="${Chain.anvilAccount(account).address}"]`) })
      expect(await rows.count()).toBe(4)
      expect(await rowOf(4).innerText()).toMatch(/Weekly beans[\s\S]*Past due[\s\S]*5\.00 TUSDC \/ week[\s\S]*Retrying a failed payment/)
      expect(await rowOf(3).innerText()).toMatch(/Weekly beans[\s\S]*Cancelled[\s\S]*Cancelled by the payer/)
      expect(await rowOf(1).innerText()).toMatch(/Coffee club[\s\S]*Active[\s\S]*10\.00 TUSDC \/ month[\s\S]*\d{4}/)
      expect(await rowOf(2).innerText()).toMatch(/Coffee club[\s\S]*Ended[\s\S]*Ended: a payment failed after every retry/)
      await shoot(page, "subscriptions-list")

      await page.getByLabel("Plan").selectOption({ label: "Coffee club · $10.00 / month" })
      await page.getByRole("button", { name: "Show" }).click()
      await page.waitForURL(`**/dashboard/subscriptions?plan=${club.planId}`)
      await expect.poll(() => rows.count(), { timeout: uiTimeoutMs }).toBe(2)

      await rowOf(1).getByRole("link").click()
      await view(page, "subscription")
      expect(page.url()).toBe(`${world.baseUrl}/dashboard/subscriptions/${active}`)
      const main = page.locator("main")
      expect(await main.innerText()).toMatch(
        /Coffee club · 0x7099…79C8[\s\S]*Active[\s\S]*Cancel subscription[\s\S]*Coffee club · \$10\.00 \/ month[\s\S]*Bean Roasters[\s\S]*0x70997970C51812dc3A010C7d01b50e0d17dc79C8[\s\S]*10\.00 TUSDC \/ month[\s\S]*12 payments \(12 months\)[\s\S]*Next charge/
      )
      const charges = page.locator("#section-payments").locator("..").locator("table.list tbody tr")
      expect(await charges.count()).toBe(2)
      expect(await charges.nth(0).innerText()).toMatch(/2 of 12[\s\S]*10\.00 TUSDC[\s\S]*Failed[\s\S]*1[\s\S]*the period's window passed before the service charged it/)
      expect(await charges.nth(1).innerText()).toMatch(/1 of 12[\s\S]*10\.00 TUSDC[\s\S]*Succeeded[\s\S]*None/)
      expect(await charges.nth(1).locator(`a[href="${explorerUrl}/tx/${chargeTx}"]`).count()).toBe(1)
      expect(await page.locator(".periods").getAttribute("aria-label")).toBe("Periods: 1 paid, 1 failed, 10 to come.")
      const manageUrl = (await partner.call("GET", `/v1/subscriptions/${active}`)).manageUrl
      expect(manageUrl).toContain(`/s/manage/${active}#`)
      expect(await main.getByText(manageUrl).count()).toBe(1)
      await shoot(page, "subscriptions-detail")

      // Paused and resumed: no charge while paused, then charged again from its next period.
      await page.getByRole("button", { name: "Pause" }).click()
      await page.locator("#subscription-status[data-status=\"paused\"]").waitFor()
      await expect.poll(() => page.locator("#announcer").innerText()).toBe("Subscription paused.")
      expect(await partner.call("GET", `/v1/subscriptions/${active}`)).toMatchObject({ status: "paused" })
      expect(await main.innerText()).toMatch(/Next charge\s+None while paused/)
      await shoot(page, "subscriptions-paused")
      await page.getByRole("button", { name: "Resume" }).click()
      await page.locator("#subscription-status[data-status=\"active\"]").waitFor()
      await expect.poll(() => page.locator("#announcer").innerText()).toBe("Subscription resumed: charged again from its next period.")

      await page.getByRole("button", { name: "Cancel subscription" }).click()
      const dialog = page.getByRole("dialog", { name: "Cancel this subscription?" })
      expect(await dialog.innerText()).toContain("No payment is taken from 0x7099…79C8 after this")
      await shoot(page, "subscriptions-cancel-confirm")
      await dialog.getByRole("button", { name: "Cancel subscription" }).click()
      await page.locator("#subscription-status[data-status=\"cancelled\"]").waitFor()
      expect(await main.innerText()).toContain("Cancelled by the merchant")
      expect(await page.getByRole("button", { name: "Cancel subscription" }).count()).toBe(0)
      expect(await page.locator(".periods").getAttribute("aria-label")).toBe("Periods: 1 paid, 1 failed, 10 not charged.")
      await expect.poll(() => page.locator("#announcer").innerText()).toBe("Subscription cancelled.")
      expect(await partner.call("GET", `/v1/subscriptions/${active}`)).toMatchObject({ status: "cancelled", cancelledBy: "merchant" })
      await shoot(page, "subscriptions-cancelled")

      await page.getByRole("link", { name: "← Subscriptions" }).click()
      await view(page, "subscriptions")
      expect(await rowOf(1).innerText()).toMatch(/Cancelled[\s\S]*Cancelled by the merchant/)
      expect(await rowOf(2).count()).toBe(1)
      await suite.expectClean(probe)
    })
  })
}
