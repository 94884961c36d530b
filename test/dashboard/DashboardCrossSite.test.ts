/**
 * Login CSRF and cross-site use of the dashboard session in Chromium: a page on another origin (a
 * second local port: the same site to the browser, so SameSite cookies go along) auto-submits
 * `text/plain` forms whose bodies read as JSON. It cannot sign the browser in to its own account
 * (the dashboard would then file what the victim enters under the attacker's partner), nor change
 * anything with the victim's session. The service runs on a real port over PGlite (no chain needed).
 */
import type { Browser } from "playwright-core"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { closeContexts, openPage, sharedBrowser, uiTimeoutMs } from "../checkout/PortalBrowser.ts"
import { freePort } from "../support/FreePort.ts"
import { type Listening, pglite, useTestServer } from "../support/TestServer.ts"

// A form posting `body` as text/plain: the one field's name and value are joined by "=".
const forgedForm = (action: string, body: string) => {
  const cut = body.lastIndexOf('"')
  const name = `${body.slice(0, cut)}","x":"`
  const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll("'", "&#39;")
  return `<!doctype html><title>Win a prize</title>
<form id="f" method="POST" action="${action}" enctype="text/plain"><input type="hidden" name='${attribute(name)}' value='"}'></form>
<script>document.getElementById("f").submit()</script>`
}

describe("Dashboard sessions against another origin, in Chromium (PGlite)", () => {
  const server = useTestServer(pglite)
  let browser: Browser
  let dashboard: Listening
  let attacker: Server
  let attackerUrl = ""
  const pages = new Map<string, string>()

  beforeAll(async () => {
    browser = await sharedBrowser()
    dashboard = await server.listen()
    const port = await freePort()
    attacker = createServer((request, response) => {
      const page = pages.get(request.url ?? "")
      response.writeHead(page === undefined ? 404 : 200, { "content-type": "text/html" }).end(page ?? "")
    })
    await new Promise<void>((resolve) => attacker.listen(port, "127.0.0.1", resolve))
    attackerUrl = `http://127.0.0.1:${port}`
  }, 120_000)
  afterAll(async () => {
    if (browser !== undefined) await closeContexts(browser)
    await dashboard?.close()
    await new Promise((resolve) => attacker?.close(resolve))
  })

  const sessionCookies = async (context: Awaited<ReturnType<typeof openPage>>["context"]) =>
    (await context.cookies(dashboard.url)).filter((cookie) => cookie.name === "paygate_session")

  it("a page on another origin cannot sign the browser in to the attacker's account", async () => {
    const attackerKey = (await server.partner()).sandbox
    pages.set("/login", forgedForm(`${dashboard.url}/dashboard/session`, JSON.stringify({ apiKey: attackerKey })))
    const probe = await openPage(browser)
    try {
      const answer = probe.page.waitForResponse((response) => response.url() === `${dashboard.url}/dashboard/session`, { timeout: uiTimeoutMs })
      await probe.page.goto(`${attackerUrl}/login`)
      const response = await answer
      expect(response.status()).toBe(403)
      expect(await response.json()).toMatchObject({ code: "forbidden" })
      expect(await sessionCookies(probe.context)).toEqual([])
      // The dashboard, opened afterwards, is signed out.
      await probe.page.goto(`${dashboard.url}/dashboard`)
      await probe.page.locator('main[data-view="sign-in"]').waitFor({ timeout: uiTimeoutMs })
    } finally {
      await probe.close()
    }
  })

  it("a page on another origin cannot act with the victim's session", async () => {
    const victim = await server.partner()
    const probe = await openPage(browser)
    try {
      await probe.page.goto(`${dashboard.url}/dashboard`)
      await probe.page.getByLabel("Secret API key").fill(victim.sandbox)
      await probe.page.getByRole("button", { name: "Sign in" }).click()
      await probe.page.locator('main:not([data-view="sign-in"]):not([data-view="loading"])').waitFor({ timeout: uiTimeoutMs })
      expect(await sessionCookies(probe.context)).toHaveLength(1)

      pages.set("/plant", forgedForm(`${dashboard.url}/v1/merchants`, JSON.stringify({ merchantName: "Planted" })))
      const answer = probe.page.waitForResponse((response) => response.url() === `${dashboard.url}/v1/merchants`, { timeout: uiTimeoutMs })
      await probe.page.goto(`${attackerUrl}/plant`)
      expect((await answer).status()).toBe(403)
      // A script on that page tries too, with the cookie sent along.
      pages.set("/blank", "<!doctype html><title>Nothing here</title>")
      await probe.page.goto(`${attackerUrl}/blank`)
      const scripted = await probe.page.evaluate(async (url) => {
        const response = await fetch(`${url}/v1/merchants`, {
          method: "POST",
          mode: "no-cors",
          credentials: "include",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ merchantName: "Planted by script" })
        })
        return response.type
      }, dashboard.url)
      expect(scripted).toBe("opaque")

      const merchants = await server.request("GET", "/v1/merchants", { apiKey: victim.sandbox })
      expect(merchants.body.data).toEqual([])
      // The victim's session still works on its own page.
      expect(await sessionCookies(probe.context)).toHaveLength(1)
    } finally {
      await probe.close()
    }
  })
})
