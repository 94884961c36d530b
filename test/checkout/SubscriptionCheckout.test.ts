/**
 * The hosted subscription pages in Chromium, against the service as `npm start` runs it (anvil,
 * PGlite, the worker's subscription job): a merchant's plan (partner API) opened at its `url`, a
 * buyer with an injected wallet who allows Permit2 to move TUSDC through the page, signs once and
 * gets the manage link; the worker subscribes on chain and charges every period until the term
 * ends; a payer cancels from the manage link and the partner API shows it; closed, unavailable and
 * unknown plans. Screenshots of each view at 375 px and 1280 px go to artifacts/screenshots/.
 */
import { Chain } from "@paygate/adapters"
import type { Page } from "playwright-core"
import { createPublicClient, createWalletClient, decodeFunctionData, type Hex, http, maxUint256, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { beforeAll, describe, expect, it } from "vitest"
import { type ProbedPage, shoot, storedState, uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"
import { TestWallet, testWalletName } from "./TestWallet.ts"

const token = parseAbi([
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 value)"
])
/** Charges of 8-second periods, sent by the worker on a small shared machine. */
const chargesTimeoutMs = 90_000

describe("Hosted subscription pages in Chromium (anvil, PGlite, worker)", () => {
  const suite = portalSuite({ usdt: true })
  let world: PortalWorld

  const settleTo = (asset: string) =>
    world.partner("POST", `/v1/merchants/${world.merchantId}/settlements/crypto`, {
      settlements: [{ asset, destination: `${world.chain.chainId}:${Chain.anvilAccount(8).address}` }]
    })
  const createPlan = (plan: Record<string, unknown>) => world.partner("POST", "/v1/plans", { merchantId: world.merchantId, ...plan })
  const tusdc = (value: string) => ({ unit: `caip19/${world.chain.usdcAssetId}`, value })

  beforeAll(async () => {
    world = suite.world()
    await settleTo(world.chain.usdcAssetId)
  })

  const walletOf = (index: number) => new TestWallet(Chain.anvilAccount(index).privateKey, { chainId: world.chain.node.chainId, rpcUrl: world.chain.node.rpcUrl })
  const reader = () => createPublicClient({ transport: http(world.chain.node.rpcUrl) })
  const allowance = (owner: Hex) =>
    reader().readContract({ address: world.chain.contracts.usdc as Hex, abi: token, functionName: "allowance", args: [owner, Chain.Permit2.permit2Address] })

  const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
  const mainText = (page: Page) => page.locator("main").innerText()
  const summaryText = (page: Page) => page.locator("#summary").innerText()
  const steps = (page: Page) =>
    page.locator("ol.wallet-steps li").evaluateAll((items) =>
      items.map((item) => ({ text: (item.textContent ?? "").trim(), current: item.getAttribute("aria-current") === "step" })))

  /** Opens `url` in a fresh page with the wallet of anvil account `index` injected. */
  const open = async (url: string, index = 5) => {
    const probe = await suite.open()
    const wallet = walletOf(index)
    await wallet.install(probe.page)
    const response = await probe.page.goto(url)
    return { ...probe, wallet, response }
  }

  /** No error in the page, nothing loaded from elsewhere, nothing stored in the browser. */
  const expectClean = async (probe: ProbedPage) => {
    expect(probe.problems).toEqual([])
    expect(probe.requests.filter((url) => !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:"))).toEqual([])
    expect(await storedState(probe.page)).toEqual({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0, cookies: 0 })
  }

  /** Polls the partner API until `done` holds for the subscription. */
  const subscriptionWhen = async (id: string, done: (detail: any) => boolean, timeoutMs = chargesTimeoutMs) => {
    const until = Date.now() + timeoutMs
    for (;;) {
      const detail = await world.partner("GET", `/v1/subscriptions/${id}`)
      if (done(detail)) return detail
      if (Date.now() > until) throw new Error(`subscription ${id} is still ${JSON.stringify(detail)}`)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  const succeeded = (detail: any) => detail.charges.filter((c: any) => c.status === "succeeded").length

  it("a buyer allows TUSDC once through the page, signs, gets the manage link; the worker charges both periods and the subscription ends", async () => {
    const plan = await createPlan({ name: "Espresso tasting", amount: tusdc("10000000"), periodSeconds: 8, periods: 2 })
    expect(plan.url).toBe(`${world.baseUrl}/s/${plan.planId}`)
    const probe = await open(plan.url)
    const { page, wallet } = probe
    const buyer = wallet.address as Hex
    expect(await allowance(buyer)).toBe(0n)

    const headers = probe.response!.headers()
    expect(headers["content-security-policy"]).toContain("default-src 'none'")
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'")
    expect(headers["x-frame-options"]).toBe("DENY")
    expect(headers["cache-control"]).toBe("no-store")
    expect(await page.title()).toBe("Espresso tasting · Corner Coffee")

    await view(page, "connect")
    expect(await summaryText(page)).toMatch(
      /Corner Coffee\s+Test mode\s+Espresso tasting\s+10\.00 TUSDC every 8 seconds\s+First charge when you subscribe\s+2 payments, then it ends/
    )
    const allows = await page.locator(".allows").innerText()
    expect(allows).toContain("At most 10.00 TUSDC every 8 seconds, 2 payments in all.")
    expect(allows).toContain("Paid only to Corner Coffee: nobody else can use your signature.")
    expect(allows).toContain("Cancel any time")
    await shoot(page, "subscribe-connect")

    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "review")
    expect(await mainText(page)).toMatch(/Connected: Test Wallet · 0x9965…A4dc[\s\S]*Paid in TUSDC on Anvil \(local\)/)
    await shoot(page, "subscribe-review")

    // The allowance falls short: the wallet first sends the approval, mined before the signature.
    const approving = wallet.hold("eth_sendTransaction")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await approving.reached
    await view(page, "working")
    expect(await mainText(page)).toMatch(/Allow TUSDC once[\s\S]*Step 1 of 2[\s\S]*Nothing is paid yet/)
    expect(await steps(page)).toEqual([
      { text: "Allow TUSDC once (a transaction, only the first time)", current: true },
      { text: "Sign the subscription (no network fee)", current: false }
    ])
    await shoot(page, "subscribe-approve")
    const signing = wallet.hold("eth_signTypedData_v4")
    approving.release()
    await signing.reached
    expect(await mainText(page)).toMatch(/Sign the subscription[\s\S]*Step 2 of 2[\s\S]*at most 10\.00 TUSDC every 8 seconds to Corner Coffee, and nothing else\. No network fee\./)
    expect((await steps(page)).map((s) => s.current)).toEqual([false, true])
    expect((await steps(page))[0]!.text).toContain("· done")
    await shoot(page, "subscribe-sign")
    signing.release()

    await view(page, "subscribed")
    expect(await mainText(page)).toMatch(
      /You're subscribed[\s\S]*Corner Coffee may take at most 10\.00 TUSDC every 8 seconds from 0x9965…A4dc\.[\s\S]*Plan\s+Espresso tasting[\s\S]*Term\s+2 payments[\s\S]*Test subscription/
    )
    const manageUrl = await page.locator("#manage-link").getAttribute("href")
    expect(manageUrl).toMatch(new RegExp(`^${world.baseUrl}/s/manage/sub_[A-Za-z0-9]+#[A-Za-z0-9_.-]+$`))
    await shoot(page, "subscribe-done")

    const approvals = wallet.callsOf("eth_sendTransaction").map((call) => {
      const tx = call.params[0] as { to: Hex; data: Hex }
      expect(tx.to.toLowerCase()).toBe(world.chain.contracts.usdc.toLowerCase())
      return decodeFunctionData({ abi: token, data: tx.data }).args
    })
    expect(approvals).toEqual([[Chain.Permit2.permit2Address, maxUint256]])
    expect(wallet.callsOf("eth_signTypedData_v4")).toHaveLength(1)
    expect(await allowance(buyer)).toBe(maxUint256)
    await expectClean(probe)

    // The worker subscribes on chain and charges both periods; then the term is over.
    const id = new URL(manageUrl!).pathname.split("/").at(-1)!
    const ended = await subscriptionWhen(id, (d) => d.status === "ended" && succeeded(d) === 2)
    expect({ status: ended.status, endedReason: ended.endedReason, paid: succeeded(ended) }).toEqual({ status: "ended", endedReason: "completed", paid: 2 })
    expect(ended.manageUrl).toBe(manageUrl)

    const manage = await open(manageUrl!)
    await view(manage.page, "subscription")
    expect(await mainText(manage.page)).toMatch(/Your subscription\s+Ended: every payment was made[\s\S]*Term\s+2 payments \(2 made\)/)
    expect(await manage.page.locator(".charge").count()).toBe(2)
    expect(await manage.page.locator(".charge-status").allInnerTexts()).toEqual(["Paid", "Paid"])
    expect(await manage.page.locator(".charge-tx .tx-hash").allInnerTexts()).toEqual(ended.charges.map((c: any) => c.txHash).reverse())
    expect(await manage.page.getByRole("button", { name: "Cancel subscription" }).count()).toBe(0)
    await shoot(manage.page, "manage-ended")
    await expectClean(manage)
  }, 300_000)

  it("a payer who already allowed TUSDC only signs; from the manage link they cancel, and the partner API shows it cancelled by the payer", async () => {
    const index = 6
    const owner = createWalletClient({ account: privateKeyToAccount(Chain.anvilAccount(index).privateKey), transport: http(world.chain.node.rpcUrl) })
    const approved = await owner.writeContract({
      chain: null,
      address: world.chain.contracts.usdc as Hex,
      abi: token,
      functionName: "approve",
      args: [Chain.Permit2.permit2Address, maxUint256]
    })
    await reader().waitForTransactionReceipt({ hash: approved, pollingInterval: 50 })

    const plan = await createPlan({ name: "Coffee club", amount: tusdc("5000000"), periodSeconds: 30 * 86_400 })
    const probe = await open(plan.url, index)
    const { page, wallet } = probe
    await view(page, "connect")
    expect(await summaryText(page)).toMatch(/Coffee club\s+5\.00 TUSDC every month\s+First charge when you subscribe\s+Until you cancel/)
    expect(await page.locator(".allows").innerText()).toContain("At most 5.00 TUSDC every month, until you cancel.")
    await page.getByRole("button", { name: testWalletName }).click()
    await view(page, "review")
    const signing = wallet.hold("eth_signTypedData_v4")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await signing.reached
    expect(await mainText(page)).toMatch(/Sign in your wallet[\s\S]*at most 5\.00 TUSDC every month to Corner Coffee/)
    expect(await page.locator("ol.wallet-steps").count()).toBe(0)
    signing.release()
    await view(page, "subscribed")
    expect(wallet.callsOf("eth_sendTransaction")).toEqual([])
    const manageUrl = (await page.locator("#manage-link").getAttribute("href"))!
    const id = new URL(manageUrl).pathname.split("/").at(-1)!
    await subscriptionWhen(id, (d) => d.status === "active" && succeeded(d) === 1)

    await page.locator("#manage-link").click()
    await view(page, "subscription")
    // The link's token stays in the page: the page's own request has none.
    expect(probe.requests.filter((url) => url.includes("/s/manage/"))).toEqual([`${world.baseUrl}/s/manage/${id}`])
    const text = await mainText(page)
    expect(text).toMatch(/Your subscription\s+Active[\s\S]*Amount\s+At most 5\.00 TUSDC every month\s+Next charge\s+.+\s+Term\s+Until you cancel/)
    expect(await page.locator(".charge-status").allInnerTexts()).toEqual(["Paid"])
    expect(await summaryText(page)).toMatch(/Corner Coffee\s+Test mode\s+Coffee club\s+5\.00 TUSDC every month/)
    await shoot(page, "manage-active")

    await page.getByRole("button", { name: "Cancel subscription" }).click()
    await view(page, "cancel")
    expect(await mainText(page)).toMatch(/Cancel this subscription\?[\s\S]*Corner Coffee will not be able to charge you again/)
    await shoot(page, "manage-cancel")
    // Changing one's mind leaves it as it was.
    await page.getByRole("button", { name: "Keep subscription" }).click()
    await view(page, "subscription")
    await page.getByRole("button", { name: "Cancel subscription" }).click()
    await page.getByRole("button", { name: "Yes, cancel subscription" }).click()
    await page.getByText("Cancelled — no further charges").waitFor()
    expect(await page.locator("main").innerText()).not.toContain("Next charge")
    expect(await page.getByRole("button", { name: "Cancel subscription" }).count()).toBe(0)
    await shoot(page, "manage-cancelled")
    await expectClean(probe)

    const detail = await world.partner("GET", `/v1/subscriptions/${id}`)
    expect({ status: detail.status, cancelledBy: detail.cancelledBy }).toEqual({ status: "cancelled", cancelledBy: "payer" })

    // The same page without the token, or with another, finds nothing.
    const wrong = await open(manageUrl.replace(/#.*$/, "#not-the-token"))
    await view(wrong.page, "not-found")
    expect(await mainText(wrong.page)).toContain("Subscription not found")
  }, 300_000)

  it("a deactivated plan is closed, one whose token the merchant cannot take is unavailable, unknown links are 404s, and a priced plan offers its tokens", async () => {
    const closed = await createPlan({ name: "Winter blend", amount: tusdc("12000000"), periodSeconds: 7 * 86_400 })
    await world.partner("POST", `/v1/plans/${closed.planId}/deactivate`)
    const probe = await open(closed.url)
    await view(probe.page, "closed")
    expect(await mainText(probe.page)).toMatch(/This plan is closed\s+Corner Coffee no longer takes new subscribers to this plan\./)
    expect(await summaryText(probe.page)).toMatch(/Winter blend\s+12\.00 TUSDC every week\s*$/)
    expect(await probe.page.locator(".allows, .wallets").count()).toBe(0)
    await shoot(probe.page, "subscribe-closed")
    await expectClean(probe)

    // TUSDT has no settlement destination yet: nothing can be taken.
    const tether = await createPlan({ name: "Tea club", amount: { unit: `caip19/${world.chain.usdtAssetId}`, value: "3000000" }, periodSeconds: 86_400 })
    const unavailable = await open(tether.url)
    await view(unavailable.page, "closed")
    expect(await mainText(unavailable.page)).toMatch(/Not available just now\s+Corner Coffee cannot take subscriptions to this plan just now\./)

    for (const path of ["/s/pln_nothing", "/s/not-an-id", "/s/manage/sub_nothing"]) {
      const missing = await open(`${world.baseUrl}${path}`)
      expect(missing.response!.status()).toBe(404)
      expect(missing.response!.headers()["x-frame-options"]).toBe("DENY")
      await view(missing.page, "not-found")
      expect(await mainText(missing.page)).toMatch(path.includes("manage") ? /Subscription not found/ : /Subscription plan not found/)
    }

    // A dollar price with a trial, taken in either token once both settle.
    await settleTo(world.chain.usdtAssetId)
    const priced = await createPlan({ name: "Pastry box", amount: { unit: "iso4217/USD", value: "450" }, periodSeconds: 7 * 86_400, trialSeconds: 14 * 86_400, periods: 12 })
    const choosing = await open(priced.url)
    await view(choosing.page, "connect")
    expect(await summaryText(choosing.page)).toMatch(/Pastry box\s+\$4\.50 every week\s+Free for 2 weeks: first charge on .+\s+12 payments, then it ends/)
    await choosing.page.getByRole("button", { name: testWalletName }).click()
    await view(choosing.page, "review")
    expect(await choosing.page.locator("label.option").allInnerTexts()).toEqual([
      expect.stringMatching(/^TUSDC\s+Test USD Coin on Anvil \(local\)$/),
      expect.stringMatching(/^TUSDT\s+.+ on Anvil \(local\)$/)
    ])
    await choosing.page.locator("label.option", { hasText: "TUSDT" }).click()
    // The texts naming the token follow the choice in place: the choice keeps the focus.
    expect(await choosing.page.locator("input[name=asset]:checked").evaluate((input) => input === (globalThis as any).document.activeElement)).toBe(true)
    expect(await choosing.page.locator(".allows").innerText()).toContain("At most $4.50 in TUSDT every week")
    await shoot(choosing.page, "subscribe-choose-token")
    await expectClean(choosing)
  }, 300_000)
})
