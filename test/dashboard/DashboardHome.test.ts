/**
 * The dashboard's home page and its phone layout in Chromium, against the service as `npm start`
 * runs it: a partner with more payments than one page (seeded over the last weeks, a few older,
 * some settled) sees a bar per day of the chart's range with each day's payments, totals per
 * currency and per token equal to the database's sums over all of its payments, and the funds held
 * at the collection address and settled per destination. On a phone the payment filters fold
 * behind a "Filters" button, and a payment's refund is an outlined button whose confirmation is
 * the red one. Screenshots: artifacts/screenshots/dashboard-home-*.png, dashboard-filters-*.png,
 * dashboard-refund-*.png.
 */
import { Commitment, type MerchantId, type PartnerId, Payment, type PaymentId, PaymentRepository, type PaymentStatus } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { shoot, viewports } from "../checkout/PortalBrowser.ts"
import { testDatabases } from "../support/TestServer.ts"
import { dashboardSuite, view } from "./DashboardWorld.ts"

const dayMs = 86_400_000
const destination = "0x000000000000000000000000000000000000dEaD"

/** One seeded payment: how many days ago it was created, its status, currency and amount. */
interface Seed {
  readonly daysAgo: number
  readonly status: PaymentStatus
  readonly currency: "USD" | "EUR"
  readonly value: bigint
  /** A settlement payout of the token amount: completed or still pending. */
  readonly settled?: "completed" | "pending"
}

// 27 payments (more than the list's page of 20): 24 in the chart's 30 days, 3 older; some settled.
const seeds: ReadonlyArray<Seed> = [
  ...[0, 0, 0, 1, 2, 2, 4, 6, 6, 6, 6, 9].map((daysAgo, i): Seed => ({ daysAgo, status: "succeeded", currency: "USD", value: 1000n + BigInt(i) * 137n })),
  ...[1, 3, 3, 12].map((daysAgo, i): Seed => ({ daysAgo, status: "succeeded", currency: "EUR", value: 2500n + BigInt(i) * 11n })),
  ...[0, 2, 5, 9, 14].map((daysAgo): Seed => ({ daysAgo, status: "failed", currency: "USD", value: 999n })),
  ...[20, 29].map((daysAgo): Seed => ({ daysAgo, status: "expired", currency: "EUR", value: 400n })),
  { daysAgo: 8, status: "succeeded", currency: "USD", value: 5000n, settled: "completed" },
  { daysAgo: 45, status: "succeeded", currency: "USD", value: 7000n, settled: "completed" },
  { daysAgo: 60, status: "succeeded", currency: "USD", value: 3000n, settled: "pending" },
  { daysAgo: 90, status: "failed", currency: "EUR", value: 100n }
]

// The token paid: 1 USD or EUR minor unit = 10 000 base units of the 6-decimal TUSDC (the test does not price).
const tokenOf = (seed: Seed) => seed.value * 10_000n

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" })
const eur = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" })
const tusdc = (baseUnits: bigint) => `${new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(Number(baseUnits) / 1e6)} TUSDC`

for (const database of testDatabases) {
  describe(`Dashboard home and phone layout in Chromium (${database.name})`, () => {
    const suite = dashboardSuite(database)

    /** A new partner with a merchant and {@link seeds} paid in TUSDC; answers the partner and a succeeded payment's id. */
    const seeded = async () => {
      const world = suite.world()
      const partner = await suite.newPartner("Harbour partner")
      const merchant = await partner.call("POST", "/v1/merchants", { merchantName: "Harbour Books" }, suite.idempotency())
      const asset = world.chain.usdcAssetId
      const now = Date.now()
      const ids = await world.database(Effect.gen(function*() {
        const payments = yield* PaymentRepository
        const sql = yield* SqlClient.SqlClient
        const ids: Array<PaymentId> = []
        const account = (kind: "collection" | "merchant") =>
          Effect.map(
            sql<{ readonly id: string }>`INSERT INTO ledger_accounts (mode, kind, chain_id, asset, partner_id, merchant_id)
              VALUES ('sandbox', ${kind}, ${`eip155:${world.chain.node.chainId}`}, ${asset},
                ${kind === "merchant" ? partner.partnerId : null}, ${kind === "merchant" ? merchant.merchantId : null})
              ON CONFLICT ON CONSTRAINT ledger_accounts_once DO UPDATE SET kind = EXCLUDED.kind RETURNING id::text AS id`,
            (rows) => rows[0]!.id
          )
        const [collection, owed] = [yield* account("collection"), yield* account("merchant")]
        // A balanced ledger transaction moving `value` from the merchant's account to the collection address's.
        const post = (source: string, value: bigint) =>
          sql`WITH t AS (INSERT INTO ledger_transactions (mode, source, source_id, posted_at) VALUES ('sandbox', ${value > 0n ? "receipt" : "payout"}, ${source}, ${now}) RETURNING id)
            INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
            SELECT t.id, x.account, 'sandbox', ${asset}, x.amount FROM t,
              (VALUES (${collection}::bigint, ${value.toString()}::numeric), (${owed}::bigint, ${(-value).toString()}::numeric)) AS x (account, amount)`
        for (const [i, seed] of seeds.entries()) {
          const createdAt = now - seed.daysAgo * dayMs - i
          const id = `pay_seedHome${i}x${now}` as PaymentId
          const paid = seed.status === "succeeded"
          yield* payments.insert(new Payment({
            id,
            partnerId: partner.partnerId as PartnerId,
            merchantId: merchant.merchantId as MerchantId,
            mode: "sandbox",
            referenceId: `harbour-${i}`,
            currency: seed.currency,
            value: seed.value,
            status: seed.status,
            stateVersion: paid ? 3 : 2,
            checkout: null,
            expiresAt: Math.floor(createdAt / 1000) + 900,
            commitment: paid
              ? new Commitment({
                kind: "push",
                account: `eip155:${world.chain.node.chainId}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`,
                asset,
                tokenAmount: tokenOf(seed),
                fingerprint: `seed-${i}`,
                txHash: null,
                authorization: null,
                reference: null,
                walletName: "Seed wallet",
                confirmedAt: Math.floor(createdAt / 1000) + 30
              })
              : null,
            cancelledReason: null,
            cancelledAt: null,
            createdAt,
            updatedAt: createdAt + 60_000
          }), [])
          if (seed.settled !== undefined) {
            // A pending one waits for its next attempt a day from now: the worker leaves it alone meanwhile.
            yield* sql`INSERT INTO payouts (payment_id, kind, asset, recipient, value, status, attempts, version, due_at, created_at, updated_at, completed_at)
              VALUES (${id}, 'settlement', ${asset}, ${`eip155:${world.chain.node.chainId}:${destination}`}, ${tokenOf(seed).toString()}, ${seed.settled}, 0, 1,
                ${seed.settled === "pending" ? now + dayMs : null}, ${createdAt}, ${createdAt}, ${seed.settled === "completed" ? createdAt : null})`
          }
          // What the ledger posted for it: the transfer in credits the merchant, a completed settlement debits it.
          if (paid) yield* post(`seed-in-${id}`, tokenOf(seed))
          if (seed.settled === "completed") yield* post(`seed-out-${id}`, -tokenOf(seed))
          ids.push(id)
        }
        return ids
      }))
      return { partner, ids, firstSucceeded: ids[0]! }
    }

    it("shows a bar per day with its payments, totals over every payment (not a page) equal to the database's sums, and the funds held and settled", async () => {
      const world = suite.world()
      const { partner } = await seeded()
      // What the database says, over all of the partner's payments (more than one page).
      const sums = await world.database(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ currency: string; count: string; total: string }>`SELECT currency, count(*)::text AS count, sum(value)::text AS total
          FROM payments WHERE partner_id = ${partner.partnerId} AND status = 'succeeded' GROUP BY currency ORDER BY currency`
      }))
      expect(seeds.length).toBeGreaterThan(20)
      expect(sums.map((row) => row.currency)).toEqual(["EUR", "USD"])
      const total = (currency: string) => BigInt(sums.find((row) => row.currency === currency)!.total)
      const succeeded = seeds.filter((s) => s.status === "succeeded")
      const tokens = succeeded.reduce((sum, s) => sum + tokenOf(s), 0n)
      const held = succeeded.filter((s) => s.settled !== "completed").reduce((sum, s) => sum + tokenOf(s), 0n)
      const settledOut = succeeded.filter((s) => s.settled === "completed").reduce((sum, s) => sum + tokenOf(s), 0n)
      const onItsWay = succeeded.filter((s) => s.settled === "pending").reduce((sum, s) => sum + tokenOf(s), 0n)

      const probe = await suite.open()
      const { page } = probe
      await page.setViewportSize(viewports.desktop)
      await suite.signIn(page, partner.apiKey, "/dashboard")
      await view(page, "home")
      expect(page.url()).toBe(`${world.baseUrl}/dashboard`)
      expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Home" }).getAttribute("aria-current")).toBe("page")

      // The chart: one bar per day of the last 30 (today included), each with that day's payments.
      const bars = page.locator("svg.chart g.bar")
      expect(await bars.count()).toBe(30)
      const drawn = await bars.evaluateAll((nodes) => nodes.map((n) => [n.getAttribute("data-date"), Number(n.getAttribute("data-created")), Number(n.getAttribute("data-succeeded"))]))
      const expected = new Map<string, [number, number]>()
      const now = Date.now()
      for (const seed of seeds.filter((s) => s.daysAgo < 30)) {
        const date = new Date(now - seed.daysAgo * dayMs).toISOString().slice(0, 10)
        const [created, ok] = expected.get(date) ?? [0, 0]
        expected.set(date, [created + 1, ok + (seed.status === "succeeded" ? 1 : 0)])
      }
      expect(drawn.filter(([, created]) => created !== 0).map(([date, created, ok]) => [date, [created, ok]]))
        .toEqual([...expected.entries()].sort(([a], [b]) => a!.localeCompare(b!)))
      expect(drawn.at(-1)![0]).toBe(new Date(now).toISOString().slice(0, 10))
      // The succeeded part of a bar is drawn (a filled rectangle) only where a payment succeeded.
      expect(await page.locator("svg.chart rect.succeeded").count()).toBe([...expected.values()].filter(([, ok]) => ok > 0).length)
      expect(await page.locator("svg.chart").getAttribute("aria-label")).toContain(`${seeds.filter((s) => s.daysAgo < 30).length} created`)

      // Totals: every succeeded payment, the older ones too, equal to the database's sums.
      const volume = page.getByRole("region", { name: "Succeeded volume, all time" })
      const volumeText = await volume.innerText()
      expect(volumeText).toMatch(new RegExp(`EUR\\s+${sums.find((r) => r.currency === "EUR")!.count}\\s+${eur.format(Number(total("EUR")) / 100).replace("$", "\\$")}`))
      expect(volumeText).toMatch(new RegExp(`USD\\s+${sums.find((r) => r.currency === "USD")!.count}\\s+${usd.format(Number(total("USD")) / 100).replace("$", "\\$")}`))
      expect(volumeText).toMatch(new RegExp(`TUSDC on Anvil \\(local\\)\\s+${succeeded.length}\\s+${tusdc(tokens)}`))

      // Funds: held at the collection address (not settled out), settled to the destination.
      const funds = await page.getByRole("region", { name: "Funds" }).innerText()
      expect(funds).toContain(`${tusdc(held)} on Anvil (local) at ${world.chain.collectionAddress.slice(0, 6)}…`)
      expect(funds).toContain(`${tusdc(settledOut)} on Anvil (local) to 0x0000…dEaD · ${tusdc(onItsWay)} on its way`)
      expect(funds).toContain("not balances read from the chain")
      await shoot(page, "dashboard-home")

      // Another range: 7 days, 7 bars.
      await page.getByRole("link", { name: "7 days" }).click()
      await expect.poll(() => bars.count()).toBe(7)
      expect(page.url()).toBe(`${world.baseUrl}/dashboard?days=7`)
      await suite.expectClean(probe)
    })

    it("folds the payment filters behind a button on a phone, shows them on a desktop; a refund is an outlined button confirmed in red", async () => {
      const world = suite.world()
      const { partner, firstSucceeded } = await seeded()
      const probe = await suite.open()
      const { page } = probe
      await page.setViewportSize(viewports.phone)
      await suite.signIn(page, partner.apiKey)
      await view(page, "payments")
      const filters = page.getByRole("search", { name: "Filter payments" })
      const toggle = page.getByRole("button", { name: "Filters" })
      expect(await filters.isVisible()).toBe(false)
      expect(await toggle.getAttribute("aria-expanded")).toBe("false")
      // The list starts at the top of a phone's screen, not below a screenful of fields.
      expect((await page.locator("table.list").boundingBox())!.y).toBeLessThan(320)
      await shoot(page, "dashboard-filters-folded")
      await toggle.click()
      expect(await filters.isVisible()).toBe(true)
      expect(await toggle.getAttribute("aria-expanded")).toBe("true")
      await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe("search")
      await toggle.click()
      expect(await filters.isVisible()).toBe(false)
      await page.setViewportSize(viewports.desktop)
      // From 640 px the filters stay in view and the button is gone.
      expect(await toggle.isVisible()).toBe(false)
      expect(await filters.isVisible()).toBe(true)
      await page.getByLabel("Status").selectOption("failed")
      await page.getByRole("button", { name: "Apply" }).click()
      await expect.poll(() => page.url()).toContain("status=failed")
      await page.setViewportSize(viewports.phone)
      // Folded again on the phone, the button says filters are on.
      await expect.poll(() => page.getByRole("button", { name: "Filters (1 on)" }).isVisible()).toBe(true)

      await page.goto(`${world.baseUrl}/dashboard/payments/${firstSucceeded}`)
      await view(page, "payment")
      const refund = page.getByRole("button", { name: "Refund…", exact: true })
      const classes = (await refund.getAttribute("class"))!.split(" ")
      expect(classes).toContain("secondary")
      expect(classes).not.toContain("danger")
      expect(classes).not.toContain("primary")
      const look = await refund.evaluate((button) => {
        const style = (globalThis as any).getComputedStyle(button)
        return { background: style.backgroundColor as string, color: style.color as string }
      })
      // Outlined: the card's white behind red text, not a red block.
      expect(look).toEqual({ background: "rgb(255, 255, 255)", color: "rgb(185, 28, 28)" })
      await shoot(page, "dashboard-refund")
      await refund.click()
      const dialog = page.getByRole("dialog")
      expect(await dialog.innerText()).toContain("This cannot be undone")
      const confirm = dialog.getByRole("button", { name: /^Refund \$/ })
      expect(await confirm.getAttribute("class")).toContain("danger")
      await dialog.getByRole("button", { name: "Keep it" }).click()
      expect(await dialog.isVisible()).toBe(false)
      expect((await partner.call("GET", `/v1/payments/${firstSucceeded}`)).refund).toBeNull()
      await suite.expectClean(probe)
    })
  })
}
