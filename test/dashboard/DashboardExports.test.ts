/**
 * The export for the books in Chromium: from the payments page a partner downloads this month's
 * payments as CSV and as JSON lines, with the session's cookie; the file holds what the API lists
 * (one row per payment, the same amounts), and the list's merchant filter narrows it; the balances
 * read from the ledger download the same way (a paid payment received, owed at the end). Screenshots
 * at 375 px and 1280 px: artifacts/screenshots/dashboard-export-*.png.
 */
import { readFile } from "node:fs/promises"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { shoot } from "../checkout/PortalBrowser.ts"
import { eventually } from "../support/Eventually.ts"
import { testDatabases } from "../support/TestServer.ts"
import { dashboardSuite, view } from "./DashboardWorld.ts"

/** Clicks "Download" and answers the file's name and text. */
const downloaded = async (page: Page) => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#export-download").click()])
  return { name: download.suggestedFilename(), text: await readFile((await download.path())!, "utf8") }
}

for (const database of testDatabases) {
  describe(`Exports from the dashboard in Chromium (${database.name})`, () => {
    const suite = dashboardSuite(database)

    it("downloads this month's payments as CSV and JSON lines, the same as the API lists, and only the filtered merchant's; its balances too", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const created = [
        await suite.createPayment(partner, world.merchantId, "export-a,\"quoted\"", "1250"),
        await suite.createPayment(partner, world.merchantId, "=export-b", "999")
      ]
      const other = await partner.call("POST", "/v1/merchants", { merchantName: "Other Shop" }, suite.idempotency())
      await suite.createPayment(partner, other.merchantId, "export-other", "500")
      await suite.pay(created[0]!.paymentId)
      expect(await suite.settled(partner, created[0]!.paymentId)).toBe("succeeded")

      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey, `/dashboard/payments?merchant=${world.merchantId}`)
      await view(page, "payments")
      await page.getByText("Export for the books").click()
      await expect.poll(() => page.locator(".export-panel .muted").innerText()).toContain("of the merchant the list shows")
      await shoot(page, "dashboard-export")

      const csv = await downloaded(page)
      // The service names the file: records, mode and period.
      expect(csv.name).toMatch(/^payments-sandbox-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/)
      const [header, ...rows] = csv.text.trimEnd().split("\n")
      expect(header).toContain("payment_id")
      // Only the filtered merchant's two payments; hostile references escaped, a formula defused.
      expect(rows).toHaveLength(2)
      for (const payment of created) expect(csv.text).toContain(payment.paymentId)
      expect(csv.text).not.toContain("export-other")
      expect(csv.text).toContain("\"export-a,\"\"quoted\"\"\"")
      expect(csv.text).toContain("'=export-b")

      await page.getByLabel("Format").selectOption("jsonl")
      const jsonl = await downloaded(page)
      expect(jsonl.name).toMatch(/\.jsonl$/)
      const records = jsonl.text.trimEnd().split("\n").map((line) => JSON.parse(line))
      const listed = (await partner.call("GET", `/v1/payments?merchantId=${world.merchantId}&limit=100`)).data
      // The same payments and amounts as the API lists.
      expect(records.map((r: any) => [r.payment_id, r.fiat_amount, r.fiat_currency]).sort()).toEqual(
        listed.map((p: any) => [p.paymentId, (Number(p.amount.value) / 100).toFixed(2), p.amount.unit.split("/")[1]]).sort()
      )
      expect(records.map((r: any) => r.reference_id).sort()).toEqual(["=export-b", "export-a,\"quoted\""])

      // The balances: what the ledger says the filtered merchant received this month and is owed at its end.
      // The ledger posts the transfer once the chain watcher sees it, a moment after the payment succeeded.
      await eventually(() => partner.call("GET", "/v1/balance"), (balance) => balance.held.length > 0)
      await page.getByLabel("Records").selectOption("balances")
      await expect.poll(() => page.locator(".export-panel .muted").innerText()).toContain("received, reversed, settled and refunded")
      await shoot(page, "dashboard-export-balances")
      await page.getByLabel("Format").selectOption("csv")
      const balances = await downloaded(page)
      expect(balances.name).toMatch(/^balances-sandbox-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/)
      const [columns, ...lines] = balances.text.trimEnd().split("\r\n").map((line) => line.split(","))
      const cell = (line: Array<string>, column: string) => line[columns!.indexOf(column)]
      expect(lines.map((line) => cell(line, "merchant_id"))).toEqual([world.merchantId])
      const paidIn = lines[0]!
      expect(cell(paidIn, "opening_base_units")).toBe("0")
      expect(BigInt(cell(paidIn, "received_base_units")!)).toBeGreaterThan(0n)
      expect(cell(paidIn, "closing_base_units")).toBe(cell(paidIn, "received_base_units"))
      expect(cell(paidIn, "closing")).toMatch(/^\d+\.\d+$/)
      const { held } = await partner.call("GET", "/v1/balance")
      expect(held).toEqual([{ asset: cell(paidIn, "token_asset"), value: cell(paidIn, "closing_base_units") }])
      await page.getByLabel("Records").selectOption("payments")

      // A last day before the first: nothing to download, and the page says why.
      await page.getByLabel("First day").fill("2026-02-10")
      await page.getByLabel("Last day").fill("2026-02-01")
      await expect.poll(() => page.locator("#export-download").getAttribute("aria-disabled")).toBe("true")
      expect(await page.locator(".export-panel .muted").innerText()).toContain("Choose a first day on or before the last day.")
      await suite.expectClean(probe)
    })
  })
}
