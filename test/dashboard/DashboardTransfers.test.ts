/**
 * The dashboard's "Transfers received" on a payment page, in Chromium against the service as
 * `npm start` runs it with push payments (TUSDC without EIP-3009; anvil, the worker and its chain
 * watcher in process), on PGlite and on PostgreSQL when `TEST_DATABASE_URL` is set: a buyer sends
 * less than the amount with the payment's reference, the page shows the transfer as it arrives
 * (without a reload), and sending it back returns the tokens to the buyer on chain.
 */
import { Chain } from "@paygate/adapters"
import { createPublicClient, createWalletClient, type Hex, http, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { shoot } from "../checkout/PortalBrowser.ts"
import { chainTimeoutMs, dashboardSuite, view } from "./DashboardWorld.ts"

const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

for (const database of testDatabases) {
  describe(`Dashboard transfers received in Chromium (${database.name}, push payments, anvil, worker)`, () => {
    const suite = dashboardSuite(database, { pull: false })

    it("shows an underpaid transfer as it arrives and sends it back to the buyer on chain", async () => {
      const world = suite.world()
      const partner = suite.partner()
      const buyer = privateKeyToAccount(Chain.anvilAccount(3).privateKey)
      const rpc = http(world.chain.node.rpcUrl)
      const chain = createPublicClient({ transport: rpc })
      const balance = () => chain.readContract({ address: world.chain.contracts.usdc, abi: erc20, functionName: "balanceOf", args: [buyer.address] })

      const payment = await suite.createPayment(partner, world.merchantId, "order-short-1")
      const probe = await suite.open()
      const { page } = probe
      await suite.signIn(page, world.partnerKey, `/dashboard/payments/${payment.paymentId}`)
      await view(page, "payment")

      // The buyer's wallet gets the transfer to send, and sends half the amount with its reference.
      const { options } = await suite.gateway(payment.paymentId, "POST", "/options", { accounts: [`eip155:${world.chain.node.chainId}:${buyer.address}`] })
      const option = options[0]
      const fetched = await suite.gateway(payment.paymentId, "POST", "/fetch", { optionId: option.id, data: option.actions[0].data.data })
      const served = Chain.PushTransfer.decodeTransferWithReference(fetched.actions[0].data.params[0].data as Hex)
      if (served._tag === "None") throw new Error("the served calldata is not a transfer with a reference")
      const before = await balance()
      const wallet = createWalletClient({ account: buyer, transport: rpc })
      const sent = await wallet.sendTransaction({
        chain: null,
        to: world.chain.contracts.usdc,
        data: Chain.PushTransfer.encodeTransferWithReference(served.value.to, served.value.value / 2n, served.value.reference),
        value: 0n
      })
      await chain.waitForTransactionReceipt({ hash: sent })

      // The page follows the waiting payment: the transfer appears without a reload.
      const transfers = page.getByRole("region", { name: "Transfers received" })
      await transfers.waitFor({ timeout: chainTimeoutMs })
      expect(await transfers.innerText()).toMatch(/6\.25 TUSDC on Anvil[\s\S]*Less than the amount \(6\.25 TUSDC short\)/)
      expect(await page.locator("#payment-status").innerText()).toBe("Waiting for buyer")
      await shoot(page, "dashboard-payment-underpaid")

      await transfers.getByRole("button", { name: /^Send back 6\.25 TUSDC/ }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Send back" }).click()
      await expect.poll(() => transfers.innerText(), { timeout: chainTimeoutMs }).toMatch(/Sent back:\s*Completed/)
      expect(await balance()).toBe(before)
      await suite.expectClean(probe)
    }, chainTimeoutMs * 2)
  })
}
