/**
 * The fixture of a browser suite: one service ({@link startPortalWorld}) for the `describe` block
 * that calls {@link portalSuite}, on the test process's Chromium (`sharedBrowser`), a fresh page
 * (own context) per `open`, closed after each test.
 */
import type { Browser } from "playwright-core"
import { afterAll, afterEach, beforeAll } from "vitest"
import { closeContexts, openPage, type ProbedPage, sharedBrowser } from "./PortalBrowser.ts"
import { type PortalWorld, startPortalWorld, type WorldOptions } from "./PortalWorld.ts"

/** What the tests of a suite use. */
export interface PortalSuite {
  readonly world: () => PortalWorld
  /** A new page, closed after the test. */
  readonly open: () => Promise<ProbedPage>
}

/** Registers the suite's hooks; call it inside `describe`. */
export const portalSuite = (options: WorldOptions = {}): PortalSuite => {
  let world: PortalWorld | undefined
  let browser: Browser | undefined
  const opened: Array<ProbedPage> = []
  beforeAll(async () => {
    world = await startPortalWorld(options)
    browser = await sharedBrowser()
  }, 240_000)
  afterEach(async () => {
    for (const probe of opened.splice(0)) await probe.close()
  })
  afterAll(async () => {
    if (browser !== undefined) await closeContexts(browser)
    await world?.close()
  })
  const started = <A>(value: A | undefined): A => {
    if (value === undefined) throw new Error("The portal suite has not started.")
    return value
  }
  return {
    world: () => started(world),
    open: async () => {
      const probe = await openPage(started(browser))
      opened.push(probe)
      return probe
    }
  }
}
