/**
 * A refund to an address the buyer chooses, in Chromium against the service (anvil, the worker in
 * process): the merchant creates it from the payment's refund dialog and copies the link; the
 * buyer opens the link, is refused a wrong address with one line, enters theirs, confirms, and the
 * refund completes on the local chain (the chosen address's TUSDC balance rises by its value).
 * Screenshots at 375 px and 1280 px go to artifacts/screenshots/refund-claim-*.png.
 */
import { createPublicClient, http, parseAbi } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { shoot } from "../checkout/PortalBrowser.ts"
import { testDatabases } from "../support/TestServer.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

for (const database of testDatabases.slice(0, 1)) {
  describe(`Refund claim page in Chromium (${database.name}, anvil, worker)`, () => {
    const suite = dashboardSuite(database)

    it("the merchant sends a claim link; the buyer chooses the address, confirms, and the refund arrives there on chain", async () => {
      const partner = suite.partner()
      const world = suite.world()
      const paid = await suite.createPayment(partner, world.merchantId, "order-claim-1")
      await suite.pay(paid.paymentId)
      expect(await suite.settled(partner, paid.paymentId)).toBe("succeeded")

      // The merchant: the refund dialog's "link" choice, then the link with a Copy button.
      const merchant = await suite.open()
      await suite.signIn(merchant.page, world.partnerKey)
      await merchant.page.goto(`${world.baseUrl}/dashboard/payments/${paid.paymentId}`)
      await view(merchant.page, "payment")
      await merchant.page.getByLabel("Send the buyer a link to choose the address").check()
      await merchant.page.getByRole("button", { name: "Refund…" }).click()
      const dialog = merchant.page.getByRole("dialog")
      expect(await dialog.innerText()).toMatch(/Refund \$12\.50\?[\s\S]*one-time link/)
      await dialog.getByRole("button", { name: "Create a link for $12.50" }).click()
      const shown = merchant.page.locator(".refund-panel .secret code")
      await shown.waitFor()
      const claimUrl = await shown.innerText()
      expect(claimUrl).toMatch(new RegExp(`^${world.baseUrl}/r/[A-Za-z0-9_-]{43}$`))
      expect(await merchant.page.getByRole("button", { name: "Copy claim link" }).count()).toBe(1)
      await shoot(merchant.page, "refund-claim-dashboard-link")
      await suite.expectClean(merchant)

      // The buyer.
      const buyer = await suite.open()
      const { page } = buyer
      await page.goto(claimUrl)
      await page.locator("main[data-view=\"enter\"]").waitFor()
      expect(await page.locator("#claim-title").innerText()).toBe("Your refund from Corner Coffee")
      expect(await page.locator("#claim-amount").innerText()).toBe("12.50 USD")
      expect(await page.locator("#claim-token").innerText()).toMatch(/^12\.5 TUSDC on \S/)
      await shoot(page, "refund-claim-enter")

      // The collection address is refused, in one line, and the field keeps what was typed.
      const address = page.getByLabel(/Your wallet address on/)
      await address.fill(world.chain.collectionAddress)
      await page.getByRole("button", { name: "Continue" }).click()
      await page.locator("#claim-error").waitFor()
      expect(await page.locator("#claim-error").innerText()).toBe(
        "That address belongs to this payment service or a token contract, not to you. Enter your wallet's address."
      )
      expect(await address.getAttribute("aria-invalid")).toBe("true")
      expect(await address.inputValue()).toBe(world.chain.collectionAddress)
      await shoot(page, "refund-claim-refused")

      // The buyer's own address, typed in lower case: confirmed in its checksum form, then sent.
      const chosen = privateKeyToAccount(generatePrivateKey()).address
      await address.fill(chosen.toLowerCase())
      await page.getByRole("button", { name: "Continue" }).click()
      await page.locator("main[data-view=\"review\"]").waitFor()
      expect(await page.locator("#claim-question").innerText()).toMatch(
        new RegExp(`^Send 12\\.5 TUSDC on .+ to ${chosen.slice(0, 6)}…${chosen.slice(-4)}\\?$`)
      )
      expect(await page.locator("#claim-recipient").innerText()).toBe(chosen)
      await shoot(page, "refund-claim-review")
      await page.getByRole("button", { name: "Send my refund" }).click()
      await page.locator("#claim-closed").waitFor()
      expect(await page.locator("#claim-closed h2").innerText()).toBe("Refund on its way")
      await shoot(page, "refund-claim-sent")

      // On chain: the chosen address receives the refund's whole value.
      const client = createPublicClient({ transport: http(world.chain.node.rpcUrl) })
      const balance = () => client.readContract({ address: world.chain.contracts.usdc, abi: erc20, functionName: "balanceOf", args: [chosen] })
      await expect.poll(balance, { timeout: chainTimeoutMs, interval: 500 }).toBe(12_500_000n)

      // The link again: used (410), saying where the refund went.
      await expect.poll(async () => {
        const response = await page.goto(claimUrl)
        return [response?.status(), await page.locator("#claim-closed h2").innerText()]
      }, { timeout: chainTimeoutMs }).toEqual([410, "Refund sent"])
      expect(await page.locator("#claim-sent-to").innerText()).toBe(chosen)
      await shoot(page, "refund-claim-used")
      await suite.expectClean(buyer, [410, 400])
      expect(buyer.requests.every((url) => url.startsWith(`${world.baseUrl}/`))).toBe(true)
    }, chainTimeoutMs * 3)
  })
}
