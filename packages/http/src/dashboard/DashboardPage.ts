/**
 * The HTML shell of the dashboard: one page for every dashboard address (the script routes on the
 * path), with the configured networks and tokens as a JSON data block (not executed, so the strict
 * Content-Security-Policy allows it). Nothing in it is a secret: who is signed in is asked from
 * `GET /dashboard/session` by the script.
 *
 * @module
 */
import { shell } from "../portal/PortalPages.ts"

/** Where the dashboard's static files are served. */
export const dashboardAssetsPath = "/dashboard/assets"

/** A configured token, for showing a payment's token amount. */
export interface DashboardAsset {
  /** CAIP-19. */
  readonly assetId: string
  readonly symbol: string
  readonly decimals: number
  readonly name: string
  readonly networkName: string
  /** The payments its chain carries: `sandbox` on a test network, `live` on a real one. */
  readonly mode: "sandbox" | "live"
}

/** Configuration of the dashboard, read by `dashboard.js`. */
export interface DashboardConfig {
  /** The configured chains: CAIP-2 id, the block explorer (`{explorerUrl}/tx/{hash}`) if any, and where payments are paid. */
  readonly networks: ReadonlyArray<{ readonly chainId: string; readonly explorerUrl: string | null; readonly collectionAddress: string }>
  readonly assets: ReadonlyArray<DashboardAsset>
  /** The webhook event types an endpoint can subscribe to. */
  readonly eventTypes: ReadonlyArray<string>
}

/** The dashboard's page. */
export const dashboardPage = (config: DashboardConfig) =>
  shell({
    title: "Dashboard · paygate",
    config,
    script: "dashboard.js",
    assets: dashboardAssetsPath,
    styles: ["portal.css", "dashboard.css"],
    body: `<a class="skip-link" href="#view">Skip to content</a>
<header class="topbar" id="topbar"></header>
<div class="visually-hidden" id="announcer" role="status" aria-live="polite"></div>
<main id="view" class="content" tabindex="-1" data-view="loading">
<p class="loading" role="status"><span class="spinner" aria-hidden="true"></span>Loading…</p>
<noscript><p class="notice">The dashboard needs JavaScript.</p></noscript>
</main>`
  })
