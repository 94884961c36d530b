/**
 * The partner dashboard's pages, served by this service:
 *
 * - `GET /dashboard` and its views (`/dashboard/payments`, `/dashboard/payments/{id}`,
 *   `/dashboard/merchants`, `/dashboard/merchants/{id}`, `/dashboard/subscriptions/{id}`,
 *   `/dashboard/developers`…): one HTML shell; the script shows the view of the address.
 * - `GET /dashboard/assets/{file}`: its scripts and styles, with the portal's DOM and formatting
 *   modules and styles (plain ES modules, no build step).
 *
 * The page signs in by exchanging the secret key once for a session cookie (`/dashboard/session`,
 * HttpOnly: no script ever holds the key or the session) and then calls the partner API like any
 * client. The same strict Content-Security-Policy as the checkout: scripts, styles and connections
 * of this origin only, no inline script or style, Trusted Types enforced, never framed.
 *
 * @module
 */
import { ConfiguredNetworks, WebhookEventType } from "@paygate/domain"
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { fileURLToPath } from "node:url"
import { assetsDirectory, loadAssetsFrom, serveAssets } from "../portal/PortalAssets.ts"
import { contentSecurityPolicy, html, pageHeaders } from "../portal/PortalRoutes.ts"
import { dashboardAssetsPath, dashboardPage } from "./DashboardPage.ts"

const directory = fileURLToPath(new URL("./assets/", import.meta.url))

/** The addresses of the dashboard's views (the page routes on them itself). */
export const dashboardViews = [
  "/dashboard",
  "/dashboard/payments",
  "/dashboard/payments/:id",
  "/dashboard/merchants",
  "/dashboard/merchants/:id",
  "/dashboard/links",
  "/dashboard/subscriptions",
  "/dashboard/subscriptions/plans",
  "/dashboard/subscriptions/:id",
  "/dashboard/developers",
  "/dashboard/team",
  "/dashboard/invitation"
] as const

/** The dashboard's page and assets. */
export const DashboardRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const configured = yield* ConfiguredNetworks
  const own = yield* loadAssetsFrom(directory)
  const shared = yield* loadAssetsFrom(assetsDirectory, ["dom.js", "format.js", "gateway.js", "portal.css", "favicon.svg"])
  const assets = new Map([...shared, ...own])
  const modes = new Map(configured.networks.map((network) => [network.chainId, network.mode]))
  const page = dashboardPage({
    networks: configured.networks.map((network) => ({
      chainId: network.chainId,
      explorerUrl: network.explorerUrl,
      collectionAddress: network.collectionAddress
    })),
    assets: configured.assets.flatMap((asset) => {
      const mode = modes.get(asset.chainId)
      return mode === undefined ? [] : [{
        assetId: asset.assetId,
        symbol: asset.symbol,
        decimals: asset.decimals,
        name: asset.name,
        networkName: asset.networkName,
        mode
      }]
    }),
    eventTypes: WebhookEventType.literals
  })
  const headers = { ...pageHeaders(contentSecurityPolicy("'none'", "'none'")), "x-frame-options": "DENY" }
  for (const path of dashboardViews) yield* router.add("GET", path, Effect.sync(() => html(page, 200, headers)))
  yield* serveAssets(router, dashboardAssetsPath, assets)
}))
