/**
 * The pages served on the dashboard's origin, against pages of other local origins (Chromium):
 *
 * - `/docs` (Scalar: a 3 MB inline script) runs under a Content-Security-Policy that blocks nothing
 *   it needs (its one report is a probe for `eval`, refused on purpose), still renders the API
 *   reference, and no other origin can frame it;
 * - `/collect` can be framed only by this service's pages and the wallets of `WALLET_ORIGINS`,
 *   and tells only them how it ended: a page of another origin that frames it is refused, and one
 *   that opens it in a window hears nothing (it was told with `postMessage(…, "*")`).
 */
import { createServer, type Server } from "node:http"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { uiTimeoutMs } from "./PortalBrowser.ts"
import { portalSuite } from "./PortalSuite.ts"
import type { PortalWorld } from "./PortalWorld.ts"

// A page of another origin: frames `?src=…` (or opens it in a window on a click) and keeps every
// message it receives, with the sender's origin.
const hostPage = `<!doctype html><meta charset="utf-8"><title>other origin</title>
<button id="open" type="button">open</button>
<script>
  window.received = []
  window.addEventListener("message", (event) => window.received.push({ origin: event.origin, data: event.data }))
  const src = new URL(location.href).searchParams.get("src")
  if (location.pathname === "/frame") {
    const frame = document.createElement("iframe")
    frame.src = src
    frame.width = "800"
    frame.height = "600"
    document.body.append(frame)
  }
  document.getElementById("open").addEventListener("click", () => window.open(src, "_blank"))
</script>`

const startOrigin = async () => {
  const server: Server = createServer((_, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostPage))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

// Started before the suite's service, which is configured with the wallet's origin.
const wallet = await startOrigin()
const stranger = await startOrigin()

const received = (page: Page) => page.evaluate(() => (globalThis as any).received as Array<{ origin: string; data: unknown }>)

/** The page's only child frame, once it has loaded what it could. */
const childFrame = async (page: Page) => {
  await page.waitForLoadState("load")
  const frame = page.frames().find((f) => f !== page.mainFrame())
  if (frame === undefined) throw new Error("no frame")
  await frame.waitForLoadState("load")
  return frame
}

/** Whether a frame shows the page at `url` (a frame the browser refused shows its own error page). */
const shows = async (frame: Awaited<ReturnType<typeof childFrame>>, url: string, selector: string) =>
  frame.url() === url && (await frame.locator(selector).count()) > 0

describe("Pages on the service's origin against other origins (Chromium)", () => {
  const suite = portalSuite({ config: { WALLET_ORIGINS: `${wallet.origin}/` } })
  let world: PortalWorld
  beforeAll(() => {
    world = suite.world()
  })
  afterAll(async () => {
    await wallet.close()
    await stranger.close()
  })

  it("/docs renders the API reference under its Content-Security-Policy, which blocks nothing it needs", async () => {
    const response = await fetch(`${world.baseUrl}/docs`)
    const csp = response.headers.get("content-security-policy") ?? ""
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toMatch(/script-src 'sha256-[^']+'/)
    expect(csp).not.toContain("unsafe-eval")
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/)
    expect(response.headers.get("x-frame-options")).toBe("DENY")

    const { page, problems } = await suite.open()
    await page.addInitScript(() => {
      const w = globalThis as any
      w.violations = []
      w.document.addEventListener("securitypolicyviolation", (event: any) => w.violations.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${world.baseUrl}/docs`)
    await page.getByText("Authentication", { exact: true }).first().waitFor()
    expect(await page.locator("body").innerText()).toMatch(/Create a payment/i)
    // "Test Request" calls the API on this origin: allowed by connect-src.
    const called = await page.evaluate(async () => (await fetch("/healthz")).status)
    expect(called).toBe(200)
    // One report is expected: the bundled Zod probes whether it may compile validators with
    // `new Function("")` (in a try/catch) and, refused as the policy means it to be, validates
    // without compiling. Anything else the policy blocked would be listed here.
    const violations: Array<string> = await page.evaluate(() => (globalThis as any).violations)
    expect(violations.filter((v) => v !== "script-src eval")).toEqual([])
    expect(problems).toEqual([])
  })

  it("a page of another origin cannot frame /docs", async () => {
    const { page } = await suite.open()
    const docs = `${world.baseUrl}/docs`
    await page.goto(`${stranger.origin}/frame?src=${encodeURIComponent(docs)}`)
    const frame = await childFrame(page)
    expect(await shows(frame, docs, "#api-reference-container")).toBe(false)
  })

  it("/collect: the configured wallet frames it and alone hears IC_COMPLETE; another origin can neither frame it nor hear it", async () => {
    const payment = await world.createPayment({ value: "1250" })
    const account = `eip155:${world.chain.node.chainId}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`
    const collect = `${world.baseUrl}/collect?paymentId=${payment.paymentId}&account=${encodeURIComponent(account)}`

    // Another origin that opens it in a window: the page works, its opener hears nothing.
    const opener = (await suite.open()).page
    await opener.goto(`${stranger.origin}/open?src=${encodeURIComponent(collect)}`)
    const [popup] = await Promise.all([opener.waitForEvent("popup"), opener.click("#open")])
    await popup.locator(`main[data-view="done"]`).waitFor({ timeout: uiTimeoutMs })
    // The message would have been posted as the done view appeared; give it time to arrive.
    await popup.waitForTimeout(500)
    expect(await received(opener)).toEqual([])

    // The wallet of WALLET_ORIGINS: framed, and told (nothing to collect for this amount: done at once).
    const walletPage = (await suite.open()).page
    await walletPage.goto(`${wallet.origin}/frame?src=${encodeURIComponent(collect)}`)
    const walletFrame = await childFrame(walletPage)
    await walletFrame.locator(`main[data-view="done"]`).waitFor({ timeout: uiTimeoutMs })
    await expect.poll(() => received(walletPage), { timeout: uiTimeoutMs }).toEqual([{ origin: world.baseUrl, data: { type: "IC_COMPLETE" } }])

    // Another origin: the frame is refused.
    const framing = (await suite.open()).page
    await framing.goto(`${stranger.origin}/frame?src=${encodeURIComponent(collect)}`)
    expect(await shows(await childFrame(framing), collect, "main")).toBe(false)
  })
})
