/**
 * Chromium for the portal's tests (Debian's headless shell through playwright-core): pages that
 * collect every console error, page error and failed request, and screenshots of a view at phone
 * (375 px) and desktop (1280 px) widths under `artifacts/screenshots/` for review.
 */
import { mkdir } from "node:fs/promises"
import { resolve } from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { chromiumPath } from "../support/ChromiumPath.ts"

/** Where screenshots go (git-ignored). */
export const screenshotDir = resolve(import.meta.dirname, "../../artifacts/screenshots")

/** Generous: the machine is small and shared. */
export const uiTimeoutMs = 30_000

// Chromium (`ChromiumPath.ts`).
const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
  })

let shared: Promise<Browser> | undefined

/**
 * This test process's Chromium, started at its first use and shared by the suites the process runs
 * one after another (a start costs more than most suites' pages). Suites stay apart: each works in
 * contexts of its own and closes them when done ({@link closeContexts}). A browser that went away
 * is started again at the next use; the process's exit stops it.
 */
export const sharedBrowser = (): Promise<Browser> => {
  shared ??= launchBrowser().then((browser) => {
    browser.on("disconnected", () => {
      shared = undefined
    })
    return browser
  }, (error: unknown) => {
    shared = undefined
    throw error
  })
  return shared
}

/** Closes every context of `browser`: what a suite opened on the shared browser, once it is done. */
export const closeContexts = (browser: Browser): Promise<void> =>
  Promise.all(browser.contexts().map((context) => context.close())).then(() => undefined)

/** A page and what went wrong in it. */
export interface ProbedPage {
  readonly page: Page
  readonly context: BrowserContext
  /** Console errors, uncaught page errors and Content-Security-Policy violations, as they came. */
  readonly problems: Array<string>
  /** Every URL the page asked for. */
  readonly requests: Array<string>
  readonly close: () => Promise<void>
}

/** The two widths every view is reviewed at. */
export const viewports = {
  phone: { width: 375, height: 812 },
  desktop: { width: 1280, height: 800 }
} as const

/** A fresh context (no state shared with other tests) and page. */
export const openPage = async (browser: Browser, viewport: { width: number; height: number } = viewports.phone): Promise<ProbedPage> => {
  const context = await browser.newContext({ viewport, locale: "en-US", timezoneId: "UTC", deviceScaleFactor: 1 })
  context.setDefaultTimeout(uiTimeoutMs)
  const page = await context.newPage()
  const problems: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
  const requests: Array<string> = []
  page.on("request", (request) => requests.push(request.url()))
  return { page, context, problems, requests, close: () => context.close() }
}

/**
 * Screenshots of the current view at 375 px and 1280 px (`<name>-375.png`, `<name>-1280.png`);
 * fails when the page is wider than the screen at either width (it must never scroll sideways).
 */
export const shoot = async (page: Page, name: string) => {
  await mkdir(screenshotDir, { recursive: true })
  const original = page.viewportSize()
  for (const viewport of [viewports.phone, viewports.desktop]) {
    await page.setViewportSize(viewport)
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
    if (width > viewport.width) throw new Error(`${name} is ${width} px wide on a ${viewport.width} px screen`)
    await page.screenshot({ path: resolve(screenshotDir, `${name}-${viewport.width}.png`), fullPage: true, animations: "disabled" })
  }
  if (original !== null) await page.setViewportSize(original)
}

/** What the page keeps in the browser: web storage, cookies, IndexedDB databases, caches. */
export const storedState = async (page: Page) => ({
  ...(await page.evaluate(async () => {
    // Runs in the browser: `globalThis` is the page's window.
    const w = globalThis as any
    return {
      localStorage: w.localStorage.length as number,
      sessionStorage: w.sessionStorage.length as number,
      indexedDb: (await w.indexedDB.databases()).length as number,
      caches: (await w.caches.keys()).length as number
    }
  })),
  cookies: (await page.context().cookies()).length
})
