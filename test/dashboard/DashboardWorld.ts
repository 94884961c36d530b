/**
 * The dashboard's test world: the service as `npm start` runs it ({@link startPortalWorld}: anvil,
 * the worker in process) on PGlite or PostgreSQL, a browser per suite, and what a test needs
 * around the page: partners and their keys, payments created through the partner API, paid on
 * chain as a wallet pays (the gateway API, anvil's account #1 signing the EIP-3009 option), and
 * a sign-in through the form. Not the in-process `TestServer`: Chromium needs a real port, and
 * paying needs the chain and the worker.
 */
import { Chain, CredentialAdmin } from "@paygate/adapters"
import type { PartnerId } from "@paygate/domain"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { randomBytes } from "node:crypto"
import { beforeAll, expect } from "vitest"
import type { TestDatabase } from "../support/TestServer.ts"
import { type ProbedPage, storedState, uiTimeoutMs } from "../checkout/PortalBrowser.ts"
import { portalSuite } from "../checkout/PortalSuite.ts"
import type { PortalWorld } from "../checkout/PortalWorld.ts"

/** The local chain's block explorer in the dashboard tests (never opened: links are checked). */
export const explorerUrl = "https://explorer.example"

/** Payment to final status, refund to completed, on a small shared machine. */
export const chainTimeoutMs = 120_000

/** A partner as a test sees it: its sandbox key and a client of the partner API with it. */
export interface TestPartner {
  readonly apiKey: string
  readonly call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>
}

/**
 * The suite: the portal suite's world and browser, plus dashboard helpers; `pull: false`: TUSDC by
 * push transfers; `config`: more configuration of the service (a worker job's timings, say).
 */
export const dashboardSuite = (database: TestDatabase, options: { readonly pull?: boolean; readonly config?: Record<string, string> } = {}) => {
  const suite = portalSuite({ database, allowPrivateWebhooks: true, explorerUrl, ...options })
  let world: PortalWorld
  let appId = ""
  beforeAll(async () => {
    world = suite.world()
    appId = await world.admin(Effect.gen(function*() {
      return (yield* (yield* CredentialAdmin).createApp({ name: "Test wallet", mode: "sandbox" })).appId
    }))
  })

  const request = async (apiKey: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method,
      headers: { "api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? null : JSON.stringify(body)
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    return text === "" ? null : JSON.parse(text)
  }
  const partnerOf = (apiKey: string): TestPartner => ({
    apiKey,
    call: (method, path, body, headers) => request(apiKey, method, path, body, headers)
  })

  /** Calls the gateway API as a wallet app. */
  const gateway = async (paymentId: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.baseUrl}/v1/gateway/payment/${paymentId}${path}`, {
      method,
      headers: { "app-id": appId, "client-id": "dashboard-test", "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body)
    })
    const json = await response.json() as any
    if (!response.ok) throw new Error(`gateway ${path} answered ${response.status}: ${JSON.stringify(json)}`)
    return json
  }

  return {
    ...suite,
    world: () => world,
    gateway,
    /** The world's partner (its merchant: Corner Coffee). */
    partner: (): TestPartner => partnerOf(world.partnerKey),
    /** A new partner with a sandbox key. */
    newPartner: async (name: string): Promise<TestPartner & { readonly partnerId: PartnerId }> => {
      const { partnerId, apiKey } = await world.admin(Effect.gen(function*() {
        const admin = yield* CredentialAdmin
        const partner = yield* admin.createPartner({ name })
        const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id as PartnerId, mode: "sandbox" })
        return { partnerId: partner.id as PartnerId, apiKey: key.apiKey }
      }))
      return { ...partnerOf(apiKey), partnerId }
    },
    /** Creates a payment of `merchantId` through the partner API (12.50 USD by default). */
    createPayment: (partner: TestPartner, merchantId: string, referenceId: string, value = "1250") =>
      partner.call("POST", "/v1/payments", { merchantId, amount: { unit: "iso4217/USD", value }, referenceId }),
    /**
     * Pays a payment as a wallet: options for anvil account #1, sign the pull option, confirm.
     * Answers once confirmed (the payment is then processing; the worker finishes it).
     */
    pay: async (paymentId: string) => {
      const buyer = Chain.anvilAccount(1)
      const account = `eip155:${world.chain.node.chainId}:${buyer.address}`
      const { options } = await gateway(paymentId, "POST", "/options", { accounts: [account] })
      const option = options[0]
      if (option === undefined) throw new Error("no payment option")
      const signature = await Chain.LocalWallet.signOption(option, buyer.privateKey)
      return gateway(paymentId, "POST", "/confirm", { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null })
    },
    /** Follows a payment's status until it is final. */
    settled: async (partner: TestPartner, paymentId: string) => {
      const deadline = Date.now() + chainTimeoutMs
      while (Date.now() < deadline) {
        const status = await partner.call("GET", `/v1/payments/${paymentId}/status`)
        if (status.isFinal) return status.status as string
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      throw new Error(`payment ${paymentId} is not final after ${chainTimeoutMs} ms`)
    },
    /** Opens the dashboard at `path` (the payments list unless told) and signs in with `apiKey` through the form. */
    signIn: async (page: Page, apiKey: string, path = "/dashboard/payments") => {
      await page.goto(`${world.baseUrl}${path}`)
      await page.getByLabel("Secret API key").fill(apiKey)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.locator("main:not([data-view=\"sign-in\"]):not([data-view=\"loading\"])").waitFor({ timeout: uiTimeoutMs })
    },
    /** A fresh `Idempotency-Key` header. */
    idempotency: () => ({ "idempotency-key": randomBytes(8).toString("hex") }),
    /**
     * What every test ends with: no error in the page but the responses it expected (Chromium logs
     * every 4xx; 401 is how the service says "not signed in"), nothing loaded from elsewhere, no
     * web storage.
     */
    expectClean: async (probe: ProbedPage, expectedStatuses: ReadonlyArray<number> = []) => {
      const expected = [401, ...expectedStatuses].map((status) => `status of ${status}`)
      expect(probe.problems.filter((p) => !expected.some((e) => p.includes(e)))).toEqual([])
      expect(probe.requests.filter((url) => !url.startsWith(`${world.baseUrl}/`) && !url.startsWith("data:"))).toEqual([])
      expect(await storedState(probe.page)).toMatchObject({ localStorage: 0, sessionStorage: 0, indexedDb: 0, caches: 0 })
    }
  }
}

/** Unfolds the payment list's filters when they are folded (on a phone, behind the "Filters" button). */
export const unfoldFilters = async (page: Page) => {
  const toggle = page.locator("button.filters-toggle")
  if (await toggle.isVisible() && await toggle.getAttribute("aria-expanded") !== "true") await toggle.click()
}

/** Waits for the view `name` in the page's main element. */
export const view = (page: Page, name: string, timeout = uiTimeoutMs) => page.locator(`main[data-view="${name}"]`).waitFor({ timeout })
