/**
 * Paying from an exchange or another wallet, in Chromium, against the service as `npm start` runs
 * it (anvil with TUSDC and the deposit factory, the worker's chain watcher), on PGlite and on
 * PostgreSQL when `TEST_DATABASE_URL` is set. A buyer without a browser wallet chooses the deposit
 * path; the QR code the page shows, captured from Chromium, decodes to exactly the transfer the
 * service expects; a plain ERC-20 `transfer` of that, sent with viem from an account that never
 * talks to the service, turns the page to success. Too little, too much and too late are told.
 * Screenshots of each view at 375 px and 1280 px go to artifacts/screenshots/.
 */
import { Chain } from "@paygate/adapters"
import jsqr from "jsqr"
import type { Page } from "playwright-core"
import { PNG } from "pngjs"
import QRCode from "qrcode"
import type { Address } from "viem"
import { beforeAll, describe, expect, it } from "vitest"
import { testDatabases } from "../support/TestServer.ts"
import { type ProbedPage, shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import { type CreatedPayment, eurUsd, type PortalWorld } from "./PortalWorld.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { parseTransferUri, type TransferRequest } from "../support/TransferUri.ts"

/** Payment to final status, on a small shared machine. */
const settleTimeoutMs = 120_000
/** 12.50 USD in TUSDC (pegged, 6 decimals). */
const asked = 12_500_000n

/** Base units of TUSDC as the page shows them in en-US: "13.50 TUSDC", "1,000.512345 TUSDC". */
const tusdc = (value: bigint) => {
  const decimal = `${value / 1_000_000n}.${(value % 1_000_000n).toString().padStart(6, "0")}` as `${number}`
  return `${new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(decimal)} TUSDC`
}

/** The gateway's deposit operation, called as the checkout's public app (its App-Id read from the open page). */
const depositOperation = async (page: Page, baseUrl: string, paymentId: string) => {
  const appId = await page.evaluate(() => JSON.parse((globalThis as any).document.getElementById("portal-config").text).appId as string)
  const answer = await fetch(`${baseUrl}/v1/gateway/payment/${paymentId}/deposit`, {
    method: "POST",
    headers: { "app-id": appId, "client-id": "deposit-test", "content-type": "application/json" },
    body: "{}"
  })
  return { status: answer.status, body: (await answer.json()) as { options: ReadonlyArray<{ address: string }> } }
}

// A CommonJS module whose `module.exports` is the function and also carries it as `default`.
const jsQR = jsqr.default

for (const database of testDatabases) {
  describe(`Deposit checkout in Chromium (anvil, worker, ${database.name})`, () => {
    const suite = portalSuite({ database })
    let world: PortalWorld
    beforeAll(() => {
      world = suite.world()
    })

    const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
    const mainText = (page: Page) => page.locator("main").innerText()

    /** Opens the checkout with no browser wallet and chooses the deposit path; answers the options the page got. */
    const openDeposit = async (payment: CreatedPayment) => {
      const probe = await suite.open()
      await probe.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.baseUrl })
      await probe.page.goto(payment.gatewayUrl)
      await view(probe.page, "connect")
      const answer = probe.page.waitForResponse((response) => response.url().endsWith(`/v1/gateway/payment/${payment.paymentId}/deposit`))
      await probe.page.getByRole("button", { name: "Pay from an exchange or another wallet" }).click()
      const options = ((await (await answer).json()) as { options: ReadonlyArray<{ asset: string; address: string; uri: string }> }).options
      await view(probe.page, "deposit")
      await probe.page.locator(".deposit-qr img").evaluate((image: any) => image.decode())
      return { ...probe, options }
    }

    /** The transfer the QR code on the page asks for, read from Chromium's pixels. */
    const scanQr = async (page: Page): Promise<TransferRequest | null> => {
      const png = PNG.sync.read(await page.locator(".deposit-qr img").screenshot())
      const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
      expect(decoded).not.toBeNull()
      return parseTransferUri(decoded!.data)
    }

    /** A plain ERC-20 transfer from anvil account `index` (never known to the service), mined and succeeded. */
    const send = (transfer: TransferRequest, index: number) =>
      sendTokenTransfer({
        rpcUrl: world.chain.node.rpcUrl,
        privateKey: Chain.anvilAccount(index).privateKey,
        token: transfer.token as Address,
        to: transfer.to as Address,
        value: transfer.value,
        chainId: transfer.chainId
      })

    /** The expected transfer of a payment of 12.50 USD: TUSDC on the local chain to its deposit address. */
    const expected = (paymentId: string): TransferRequest => ({
      token: world.chain.contracts.usdc,
      chainId: world.chain.node.chainId,
      to: Chain.DepositAddresses.depositAddress(world.chain.contracts.depositFactory, paymentId),
      value: asked
    })

    /** Waits until the service recorded `count` transfers against the payment (the checkout's receipt). */
    const transfersRecorded = async (payment: CreatedPayment, count: number) => {
      const deadline = Date.now() + settleTimeoutMs
      for (;;) {
        const receipt = (await (await fetch(`${payment.gatewayUrl}/receipt`)).json()) as { transfers: ReadonlyArray<unknown> }
        if (receipt.transfers.length >= count) return receipt.transfers
        if (Date.now() > deadline) throw new Error(`${count} transfers were not recorded in time`)
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }

    const expectClean = async (probe: ProbedPage) => {
      expect(probe.problems).toEqual([])
      expect(probe.requests.filter((url) => !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:"))).toEqual([])
      expect(await storedState(probe.page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
    }

    it("shows the amount, network and deposit address with a QR code that decodes to exactly the expected transfer; a plain transfer of it pays the payment", async () => {
      const payment = await world.createPayment()
      const probe = await suite.open()
      await probe.page.goto(payment.gatewayUrl)
      await view(probe.page, "connect")
      // Without a browser wallet, paying from an exchange is the first choice.
      const choice = probe.page.getByRole("button", { name: "Pay from an exchange or another wallet" })
      expect(await choice.getAttribute("class")).toContain("primary")
      expect(await mainText(probe.page)).toContain("No browser wallet was found")
      await shoot(probe.page, "checkout-deposit-choice")

      const { page, options } = await openDeposit(payment)
      const transfer = expected(payment.paymentId)
      expect(options).toHaveLength(1)
      expect(options[0]!.address).toBe(transfer.to)
      const text = await mainText(page)
      expect(text).toMatch(/Send exactly\s+12\.50 TUSDC\s+Test USD Coin/)
      expect(text).toMatch(/Network\s+Anvil \(local\)/)
      expect(text).toContain(transfer.to)
      expect(text).toMatch(/Send only TUSDC on Anvil \(local\)[\s\S]*Exactly 12\.50 TUSDC must arrive[\s\S]*It must arrive before \d{1,2}:\d\d [AP]M UTC\.[\s\S]*another network/)
      // Where the network's coin is not accepted, the address is for tokens only: ether sent there is not credited.
      expect(text).toContain("So is the network's own coin (such as ETH): this address takes tokens only")

      // The QR code, as Chromium drew it, is the transfer the service waits for, and nothing else.
      expect(await scanQr(page)).toEqual(transfer)
      expect(parseTransferUri(options[0]!.uri)).toEqual(transfer)
      expect(await page.locator(".deposit-qr img").getAttribute("src")).toMatch(/\/deposit-qr\.svg\?asset=/)

      // Copy buttons: the exact amount as typed into an exchange, the address; "Copied" is shown and announced.
      await page.getByRole("button", { name: "Copy amount" }).click()
      await page.getByRole("button", { name: "Copied" }).waitFor()
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe("12.50")
      expect(await page.getByRole("status").filter({ hasText: "Amount copied" }).count()).toBe(1)
      await shoot(page, "checkout-deposit")
      await page.getByRole("button", { name: "Copy address" }).click()
      // The page writes the clipboard after the click returns.
      await expect.poll(() => page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(transfer.to)
      expect(await page.getByRole("link", { name: "Open in a wallet app" }).getAttribute("href")).toBe(options[0]!.uri)

      // Paid by an account that never called the service: the page follows it to success.
      const hash = await send((await scanQr(page))!, 7)
      await view(page, "success", settleTimeoutMs)
      expect(await mainText(page)).toMatch(/Payment successful[\s\S]*You paid 12\.50 TUSDC to Corner Coffee/)
      await page.locator(".receipt .tx-hash").waitFor()
      expect(await page.locator(".receipt .tx-hash").innerText()).toBe(hash)
      expect(await page.locator(".transfer-notes").innerText()).toBe("")
      await shoot(page, "checkout-deposit-success")
      expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "succeeded", isFinal: true })
      await expectClean(probe)
    }, 300_000)

    it("tells a buyer who sent too little what is left, shows the rest to send, and the rest pays; a buyer who sent too much is told the excess is refundable", async () => {
      const short = await world.createPayment()
      const probe = await openDeposit(short)
      const { page } = probe
      const transfer = expected(short.paymentId)
      await send({ ...transfer, value: 5_000_000n }, 6)
      await page.getByRole("alert").filter({ hasText: "5.00 TUSDC arrived" }).waitFor({ timeout: settleTimeoutMs })
      expect(await page.getByRole("alert").innerText()).toBe(
        "5.00 TUSDC arrived, 7.50 TUSDC short of the amount. Send the remaining 7.50 TUSDC to the same address to complete this payment, or ask Corner Coffee to refund the 5.00 TUSDC."
      )
      expect(await world.merchantStatus(short.paymentId)).toEqual({ status: "pending", isFinal: false })
      // The amount and the code shown become the rest.
      await expect.poll(() => page.locator(".deposit-amount").innerText(), { timeout: uiTimeoutMs }).toBe(tusdc(7_500_000n))
      await page.locator(".deposit-qr img").evaluate((image: any) => image.decode())
      const rest = await scanQr(page)
      expect(rest).toEqual({ ...transfer, value: 7_500_000n })
      await shoot(page, "checkout-deposit-underpaid")
      await send(rest!, 6)
      await view(page, "success", settleTimeoutMs)
      // Both parts paid it: nothing to tell.
      expect(await page.locator(".transfer-notes").innerText()).toBe("")
      expect(await world.merchantStatus(short.paymentId)).toEqual({ status: "succeeded", isFinal: true })
      await expectClean(probe)

      const over = await world.createPayment()
      const second = await openDeposit(over)
      await send({ ...expected(over.paymentId), value: 15_000_000n }, 6)
      await view(second.page, "success", settleTimeoutMs)
      await second.page.locator(".transfer-notes .alert").waitFor()
      expect(await second.page.locator(".transfer-notes").innerText()).toBe(
        "You sent 15.00 TUSDC, 2.50 TUSDC more than asked. Corner Coffee can refund the difference."
      )
      await shoot(second.page, "checkout-deposit-overpaid")
      expect(await world.merchantStatus(over.paymentId)).toEqual({ status: "succeeded", isFinal: true })
      await expectClean(second)
    }, 300_000)

    it("says a transfer that arrived after the payment expired did not pay it", async () => {
      const payment = await world.createPayment()
      const probe = await openDeposit(payment)
      await probe.close()
      await world.expireNow(payment.paymentId)
      await send(expected(payment.paymentId), 8)
      await transfersRecorded(payment, 1)

      const again = await suite.open()
      await again.page.goto(payment.gatewayUrl)
      await view(again.page, "expired")
      await again.page.locator(".transfer-notes .alert").waitFor()
      expect(await again.page.locator(".transfer-notes").innerText()).toMatch(
        /^12\.50 TUSDC arrived after this payment had closed, so it did not pay it\. Ask Corner Coffee to refund it \(transaction 0x[0-9a-f]{4}…[0-9a-f]{4}\)\.$/
      )
      await shoot(again.page, "checkout-deposit-late")
      expect(await world.merchantStatus(payment.paymentId)).toEqual({ status: "expired", isFinal: true })
      await expectClean(again)
    }, 300_000)

    it("re-quotes a priced amount when its rate runs out: same address, the amount and code of the new quote", async () => {
      // EUR is priced through the test feed: the deposit amount has a quote expiry (5 minutes).
      const payment = await world.createPayment({ currency: "EUR", value: "1250" })
      const probe = await suite.open()
      await probe.page.clock.install()
      await probe.page.goto(payment.gatewayUrl)
      await view(probe.page, "connect")
      await probe.page.getByRole("button", { name: "Pay from an exchange or another wallet" }).click()
      await view(probe.page, "deposit")
      const { page } = probe
      expect(await mainText(page)).toMatch(/It must arrive before \d{1,2}:\d\d [AP]M UTC\./)
      const address = await page.locator(".deposit-address").innerText()
      // EUR 12.50 at the feed's EUR / USD rate, rounded up to whole base units.
      expect(await page.locator(".deposit-amount").innerText()).toBe(tusdc((1250n * eurUsd * 10_000n + 10n ** 8n - 1n) / 10n ** 8n))
      const deposits = () => probe.requests.filter((url) => url.endsWith("/deposit")).length
      expect(deposits()).toBe(1)

      await page.clock.fastForward("05:01")
      await page.getByRole("alert").filter({ hasText: "The amount was updated" }).waitFor()
      expect(deposits()).toBe(2)
      expect(await page.locator(".deposit-address").innerText()).toBe(address)
      expect(await mainText(page)).toMatch(/It must arrive before \d{1,2}:\d\d [AP]M UTC\./)
      await page.locator(".deposit-qr img").evaluate((image: any) => image.decode())
      const scanned = await scanQr(page)
      expect(scanned?.to).toBe(address)
      expect(await page.locator(".deposit-amount").innerText()).toBe(tusdc(scanned!.value))
      await expectClean(probe)
    }, 180_000)

    it("offers no deposit path for a payment that requires buyer data: the page says why, the operation answers no option, no QR code", async () => {
      // 1000.00 USD: the contract's default data collection threshold, which the world's partner keeps.
      const payment = await world.createPayment({ value: "100000" })
      const probe = await suite.open()
      const { page } = probe
      await page.goto(payment.gatewayUrl)
      await view(page, "connect")
      const text = await mainText(page)
      expect(text).toMatch(/^Pay with your wallet[\s\S]*No browser wallet was found/)
      expect(await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).count()).toBe(0)
      expect(await page.locator(".deposit-unavailable").innerText()).toBe(
        "This amount needs a wallet that can share your details with the payment, so it cannot be paid from an exchange or by sending to an address."
      )
      await shoot(page, "checkout-deposit-needs-data")
      expect(await depositOperation(page, world.baseUrl, payment.paymentId)).toEqual({ status: 200, body: { options: [] } })
      const qr = await fetch(`${payment.gatewayUrl}/deposit-qr.svg?asset=${encodeURIComponent(world.chain.usdcAssetId)}`)
      expect(qr.status).toBe(404)
      // Just below the threshold, the deposit path is there.
      const below = await world.createPayment({ value: "99999" })
      await page.goto(below.gatewayUrl)
      await view(page, "connect")
      expect(await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).count()).toBe(1)
      expect(await page.locator(".deposit-unavailable").count()).toBe(0)
      const offered = await depositOperation(page, world.baseUrl, below.paymentId)
      expect(offered.body.options.map((o) => o.address)).toEqual([expected(below.paymentId).to])
      await expectClean(probe)
    }, 120_000)

    it("lets the buyer pick the network when the payment can be paid on several", async () => {
      const payment = await world.createPayment()
      const probe = await suite.open()
      const { page } = probe
      // The local service pays on one chain: a second network is added to its real answer.
      const base = { network: "eip155:8453", name: "Base", address: "0x1111111111111111111111111111111111111111" }
      const baseAsset = `${base.network}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`
      const baseUri = `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=${base.address}&uint256=12500000`
      await page.route("**/deposit", async (route) => {
        const answer = (await (await route.fetch()).json()) as { options: Array<any> }
        const [local] = answer.options
        const other = { ...local, network: base.network, asset: baseAsset, address: base.address, uri: baseUri, amount: { ...local.amount, unit: `caip19/${baseAsset}`, display: { ...local.amount.display, networkName: base.name } } }
        await route.fulfill({ json: { options: [local, other] } })
      })
      const baseQr = await QRCode.toString(baseUri, { type: "svg", errorCorrectionLevel: "M" })
      await page.route("**/deposit-qr.svg?asset=eip155%3A8453*", (route) => route.fulfill({ contentType: "image/svg+xml", body: baseQr }))
      await page.goto(payment.gatewayUrl)
      await view(page, "connect")
      await page.getByRole("button", { name: "Pay from an exchange or another wallet" }).click()
      await view(page, "deposit")
      const picker = page.getByRole("group", { name: "Network you send on" })
      expect(await picker.getByRole("radio", { name: "Anvil (local) · TUSDC" }).isChecked()).toBe(true)
      await picker.getByRole("radio", { name: "Base · TUSDC" }).check()
      const text = await mainText(page)
      expect(text).toMatch(/Network\s+Base/)
      expect(text).toContain(`Send only TUSDC on Base`)
      expect(text).toContain(base.address)
      expect(text).toContain("Waiting for your transfer on Base.")
      await shoot(page, "checkout-deposit-networks")
      await picker.getByRole("radio", { name: "Anvil (local) · TUSDC" }).check()
      expect(await page.locator(".deposit-address").innerText()).toBe(expected(payment.paymentId).to)
      expect(await scanQr(page)).toEqual(expected(payment.paymentId))
      await expectClean(probe)
    }, 120_000)

    it("serves the QR code of the payment's own deposit options only", async () => {
      const payment = await world.createPayment()
      const probe = await openDeposit(payment)
      const asset = probe.options[0]!.asset
      const qr = (query: string) => fetch(`${payment.gatewayUrl}/deposit-qr.svg?${query}`)
      const found = await qr(`asset=${encodeURIComponent(asset)}&value=${asked}`)
      expect(found.status).toBe(200)
      expect(found.headers.get("content-type")).toBe("image/svg+xml")
      expect(found.headers.get("cache-control")).toBe("no-store")
      expect(found.headers.get("content-security-policy")).toBe("default-src 'none'")
      expect(await found.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
      // Another amount, another token, no token, a text of the caller's: no code.
      for (const query of [`asset=${encodeURIComponent(asset)}&value=1`, `asset=${encodeURIComponent(asset.replace(/.$/, "0"))}`, "", "uri=ethereum%3A0x00"]) {
        expect((await qr(query)).status).toBe(404)
      }
      expect((await fetch(`${world.baseUrl}/checkout/pay_01UNKNOWN0000000000000000000/deposit-qr.svg?asset=${encodeURIComponent(asset)}`)).status).toBe(404)
      // A payment that no longer waits has no deposit code.
      await world.expireNow(payment.paymentId)
      expect((await qr(`asset=${encodeURIComponent(asset)}`)).status).toBe(404)
    }, 120_000)
  })
}

describe("Checkout without deposit addresses in Chromium (anvil, PGlite)", () => {
  const suite = portalSuite({ deposits: false })

  it("offers no deposit path when no chain has a deposit factory", async () => {
    const world = suite.world()
    const payment = await world.createPayment()
    const probe = await suite.open()
    await probe.page.goto(payment.gatewayUrl)
    await probe.page.locator(`main[data-view="connect"]`).waitFor()
    const text = await probe.page.locator("main").innerText()
    expect(text).toMatch(/^Pay with your wallet[\s\S]*No browser wallet was found/)
    expect(text).not.toContain("exchange")
    expect(await probe.page.getByRole("button", { name: "Look again" }).count()).toBe(1)
    // The deposit operation agrees: nothing to offer.
    expect(await depositOperation(probe.page, world.baseUrl, payment.paymentId)).toEqual({ status: 200, body: { options: [] } })
    expect(probe.problems).toEqual([])
  }, 120_000)
})
