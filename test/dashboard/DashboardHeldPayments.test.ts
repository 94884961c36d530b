/**
 * Held payments (`capture: "manual"`) on the dashboard in Chromium: payments seeded in the database
 * as the escrow and the worker would have left them (authorized with a first capture done, succeeded
 * after captures and a void, voided) show their badges, amounts and deadline; the merchant captures
 * part through the form and sees the capture pending (nothing carries it out here: the holds job
 * polls once an hour in this suite), then completed when the record says so; voids after a
 * confirmation; refusals read as one line. Screenshots: artifacts/screenshots/held-payment-*.png.
 */
import { Chain } from "@paygate/adapters"
import {
  Commitment,
  EscrowTerms,
  Hold,
  HoldOperation,
  type MerchantId,
  newHold,
  type PartnerId,
  Payment,
  type PaymentId,
  PaymentRepository,
  SignedAuthorization
} from "@paygate/domain"
import { Effect, Option } from "effect"
import type { Page } from "playwright-core"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot, uiTimeoutMs } from "../checkout/PortalBrowser.ts"
import { dashboardSuite, explorerUrl, view } from "./DashboardWorld.ts"

const escrow = "0x00000000000000000000000000000000000e5c20"
const receiver = "0x000000000000000000000000000000000000dEaD"
const hex32 = () => `0x${randomBytes(32).toString("hex")}`
/** TUSDC has 6 decimals: 1 USD cent is 10 000 base units. */
const tokens = (cents: bigint) => cents * 10_000n

/** One seeded operation: kind, cents, status. */
type Op = readonly [HoldOperation["kind"], bigint, HoldOperation["status"]]

interface Seed {
  readonly reference: string
  readonly cents: bigint
  readonly status: "authorized" | "succeeded" | "voided"
  readonly operations: ReadonlyArray<Op>
}

const mainText = (page: Page) => page.locator("main").innerText()

for (const database of testDatabases) {
  describe(`Held payments on the dashboard in Chromium (${database.name})`, () => {
    // The holds job's first round finds nothing; the next is an hour later: what the test asks stays pending.
    const suite = dashboardSuite(database, { config: { HOLD_POLL_MS: "3600000" } })

    const operation = ([kind, cents, status]: Op, at: number) =>
      new HoldOperation({
        kind,
        tokenAmount: tokens(cents),
        value: cents,
        status,
        txHash: status === "succeeded" ? hex32() : null,
        failure: null,
        requestedBy: "merchant",
        requestedAt: at,
        completedAt: status === "succeeded" ? at + 30 : null
      })

    /** Stores `seed` paid into the escrow, with its operations done as listed; answers its id. */
    const seedHeld = (partnerId: string, merchantId: string, seed: Seed) => {
      const world = suite.world()
      const chainId = `eip155:${world.chain.node.chainId}`
      const now = Math.floor(Date.now() / 1000)
      const expiresAt = now - 60
      // 2 days 3 hours and half an hour's slack from now: the page says "2 days 3 hours left".
      const base = newHold(expiresAt, 2 * 86_400 + 3 * 3_600 + 60 + 1_800, true)
      const operations = seed.operations.map((op, i) => operation(op, now - 3_000 + i * 600))
      const captured = seed.operations.filter(([kind, , status]) => kind === "capture" && status === "succeeded")
        .reduce((sum, [, cents]) => sum + cents, 0n)
      const salt = hex32()
      const id = `pay_held${seed.reference.replace(/[^A-Za-z0-9]/g, "")}${now}` as PaymentId
      return world.database(Effect.gen(function*() {
        const payments = yield* PaymentRepository
        yield* payments.insert(new Payment({
          id,
          partnerId: partnerId as PartnerId,
          merchantId: merchantId as MerchantId,
          mode: "sandbox",
          referenceId: seed.reference,
          currency: "USD",
          value: seed.cents,
          status: seed.status,
          stateVersion: 3 + operations.length,
          checkout: null,
          expiresAt,
          commitment: new Commitment({
            kind: "pull",
            account: `${chainId}:${Chain.anvilAccount(1).address}`,
            asset: world.chain.usdcAssetId,
            tokenAmount: tokens(seed.cents),
            fingerprint: `held-${salt}`,
            txHash: hex32(),
            authorization: new SignedAuthorization({
              to: escrow,
              validBefore: expiresAt,
              nonce: salt,
              signature: "0x01",
              escrow: new EscrowTerms({ receiver, captureBefore: base.captureBefore, refundBefore: base.refundBefore })
            }),
            reference: null,
            walletName: "Test wallet",
            confirmedAt: now - 3_600,
            recipient: `${chainId}:${escrow}`
          }),
          cancelledReason: null,
          cancelledAt: null,
          hold: new Hold({
            ...base,
            authorized: tokens(seed.cents),
            captured: tokens(captured),
            capturedValue: captured,
            released: seed.status === "authorized" ? null : seed.operations.some(([kind]) => kind === "void") ? "voided" : null,
            operations
          }),
          createdAt: (now - 4_000) * 1000,
          updatedAt: now * 1000
        }), [])
        return id
      }))
    }

    /** Marks the held payment's operation `index` succeeded on chain, as the worker would. */
    const completeOperation = (id: string, index: number) =>
      suite.world().database(Effect.gen(function*() {
        const payments = yield* PaymentRepository
        const payment = Option.getOrThrow(yield* payments.findById(id as PaymentId))
        const hold = payment.hold!
        const op = hold.operations[index]!
        const done = new HoldOperation({ ...op, status: "succeeded", txHash: hex32(), completedAt: Math.floor(Date.now() / 1000) })
        expect(yield* payments.update(new Payment({
          ...payment,
          stateVersion: payment.stateVersion + 1,
          hold: new Hold({
            ...hold,
            captured: hold.captured + op.tokenAmount,
            capturedValue: hold.capturedValue + op.value,
            operations: hold.operations.map((o, i) => (i === index ? done : o))
          })
        }), [])).toBe(true)
      }))

    it("shows held payments' badges and funds, captures part through the form, follows it, voids after a confirmation; refusals in one line", async () => {
      const partner = await suite.newPartner("Held partner")
      const merchant = await partner.call("POST", "/v1/merchants", { merchantName: "Harbour Rentals" }, suite.idempotency())
      const seed = (s: Seed) => seedHeld(partner.partnerId, merchant.merchantId, s)
      const held = await seed({ reference: "rental-held", cents: 2000n, status: "authorized", operations: [["capture", 500n, "succeeded"]] })
      const done = await seed({
        reference: "rental-done",
        cents: 2000n,
        status: "succeeded",
        operations: [["capture", 1000n, "succeeded"], ["capture", 500n, "succeeded"], ["void", 500n, "succeeded"]]
      })
      await seed({ reference: "rental-voided", cents: 999n, status: "voided", operations: [["void", 999n, "succeeded"]] })
      const other = await seed({ reference: "rental-other", cents: 1500n, status: "authorized", operations: [] })

      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, partner.apiKey)
      await view(page, "payments")
      const row = (reference: string) => page.locator("table.list tbody tr").filter({ hasText: reference })
      await expect.poll(() => row("rental-voided").count(), { timeout: uiTimeoutMs }).toBe(1)
      expect(await row("rental-held").locator(".status").innerText()).toBe("Authorized")
      expect(await row("rental-done").innerText()).toMatch(/Succeeded · \$15\.00 captured/)
      expect(await row("rental-voided").locator(".status").innerText()).toBe("Voided")
      // Of the succeeded held payment, what was captured counts.
      expect(await page.locator(".summary-line").innerText()).toContain("Succeeded: $15.00")
      const options = await page.getByLabel("Status").locator("option").allInnerTexts()
      expect(options).toEqual(expect.arrayContaining(["Authorized", "Voided", "Reclaimed"]))

      // The succeeded one: captured, given back, no form.
      await page.goto(`${suite.world().baseUrl}/dashboard/payments/${done}`)
      await view(page, "payment")
      const funds = page.getByRole("region", { name: "Held funds" })
      const fundsText = await funds.innerText()
      expect(fundsText).toMatch(/Captured\s+\$15\.00 \(15\.00 TUSDC\)/)
      expect(fundsText).toMatch(/Given back \(voided\)\s+\$5\.00 \(5\.00 TUSDC\)/)
      expect(await funds.locator("table.list tbody tr").count()).toBe(3)
      expect(await funds.getByLabel(/Amount to capture/).count()).toBe(0)
      expect(await mainText(page)).toMatch(/Settlement\s+Each capture went straight to the merchant's settlement destination/)
      // The service refunds none of a held payment (its captures went to the merchant): no refund form.
      expect(await mainText(page)).toMatch(/Refund\s+From the merchant's settlement destination/)
      expect(await page.getByRole("region", { name: "Refunds" }).count()).toBe(0)
      await shoot(page, "held-payment-succeeded")

      // The authorized one: what is held, the deadline, the capture done so far with its transaction.
      await page.goto(`${suite.world().baseUrl}/dashboard/payments/${held}`)
      await view(page, "payment")
      expect(await page.locator("#payment-status").innerText()).toBe("Authorized")
      const text = await funds.innerText()
      expect(text).toMatch(/Authorized\s+\$20\.00 \(20\.00 TUSDC\)/)
      expect(text).toMatch(/Captured\s+\$5\.00 \(5\.00 TUSDC\)/)
      expect(text).toMatch(/Still held\s+\$15\.00 \(15\.00 TUSDC\)/)
      expect(text).toMatch(/Capture by\s+.+\s+2 days 3 hours left/)
      expect(text).toContain("What is still held goes back to the buyer automatically")
      expect(await funds.getByRole("img").getAttribute("aria-label")).toBe("Captured $5.00, Left to capture $15.00")
      const ops = funds.locator("table.list tbody tr")
      expect(await ops.first().innerText()).toMatch(/Capture[\s\S]*\$5\.00[\s\S]*5\.00 TUSDC[\s\S]*Succeeded/)
      expect(await ops.first().locator("a").getAttribute("href")).toMatch(new RegExp(`^${explorerUrl}/tx/0x[0-9a-f]{64}$`))
      expect(await funds.getByText("$15.00 is left to capture. Leave it empty to capture all of it.").count()).toBe(1)
      expect(await funds.getByText("Or give the $15.00 left back to the buyer.").count()).toBe(1)
      await shoot(page, "held-payment-authorized")

      // Refused in the page, each in one line: not an amount, more than is left.
      const amount = funds.getByLabel("Amount to capture (USD)")
      const problem = funds.locator("#capture-problem [role=alert]")
      await amount.fill("12.345")
      await funds.getByRole("button", { name: "Capture" }).click()
      await expect.poll(() => problem.innerText()).toBe("Enter an amount with at most 2 decimals, like 5.00.")
      await amount.fill("16")
      await funds.getByRole("button", { name: "Capture" }).click()
      await expect.poll(() => problem.innerText()).toBe("At most $15.00 is left to capture.")
      expect(await amount.getAttribute("aria-invalid")).toBe("true")

      // A part: recorded at once, pending (nothing sends it here).
      await amount.fill("6")
      await funds.getByRole("button", { name: "Capture" }).click()
      await expect.poll(() => ops.count(), { timeout: uiTimeoutMs }).toBe(2)
      expect(await ops.nth(1).innerText()).toMatch(/Capture[\s\S]*\$6\.00[\s\S]*6\.00 TUSDC[\s\S]*Pending/)
      expect(await funds.getByText("$9.00 is left to capture.", { exact: false }).count()).toBe(1)
      expect(await funds.getByRole("img").getAttribute("aria-label")).toBe("Captured $5.00, Being captured $6.00, Left to capture $9.00")
      const record = await partner.call("GET", `/v1/payments/${held}`)
      expect(record.status).toBe("authorized")
      expect(record.hold.operations.map((op: any) => [op.kind, op.value.value, op.status, op.requestedBy])).toEqual([
        ["capture", "500", "succeeded", "merchant"],
        ["capture", "600", "pending", "merchant"]
      ])
      await shoot(page, "held-payment-capturing")

      // The page follows the record while the capture is under way, and says when it is done.
      await completeOperation(held, 1)
      await expect.poll(() => page.locator("#announcer").innerText(), { timeout: uiTimeoutMs }).toBe("Capture completed.")
      await expect.poll(async () => (await funds.innerText()).match(/Captured\s+\$11\.00/) !== null, { timeout: uiTimeoutMs }).toBe(true)

      // Void: asked first; "Keep it" leaves everything as it was.
      await funds.getByRole("button", { name: "Void…" }).click()
      const dialog = page.getByRole("dialog")
      expect(await dialog.innerText()).toMatch(/Give \$9\.00 back to the buyer\?[\s\S]*what is captured \(or being captured\) stays yours/)
      await dialog.getByRole("button", { name: "Keep it" }).click()
      expect((await partner.call("GET", `/v1/payments/${held}`)).hold.operations).toHaveLength(2)
      await funds.getByRole("button", { name: "Void…" }).click()
      await dialog.getByRole("button", { name: "Void $9.00" }).click()
      await expect.poll(() => ops.count(), { timeout: uiTimeoutMs }).toBe(3)
      expect(await ops.nth(2).innerText()).toMatch(/Void[\s\S]*\$9\.00[\s\S]*Pending/)
      expect(await funds.innerText()).toContain("A void is under way: what is still held goes back to the buyer.")
      expect(await funds.getByRole("button", { name: "Void…" }).count()).toBe(0)
      const voided = await partner.call("GET", `/v1/payments/${held}`)
      expect(voided.hold.operations.at(-1)).toMatchObject({ kind: "void", status: "pending", value: { value: "900" } })

      // The service's refusal, in one line: another payment voided behind this page's back.
      await page.goto(`${suite.world().baseUrl}/dashboard/payments/${other}`)
      await view(page, "payment")
      await partner.call("POST", `/v1/payments/${other}/void`)
      await funds.getByLabel("Amount to capture (USD)").fill("4")
      await funds.getByRole("button", { name: "Capture" }).click()
      await expect.poll(() => problem.innerText()).toBe(`Not captured: Payment ${other} is being voided.`)
      await funds.getByRole("button", { name: "Void…" }).click()
      await dialog.getByRole("button", { name: "Void $15.00" }).click()
      await expect.poll(() => funds.locator("#void-problem [role=alert]").innerText()).toBe(`Not voided: Payment ${other} is being voided.`)
      await suite.expectClean(probe, [409])
    })
  })
}
