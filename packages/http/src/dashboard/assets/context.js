// @ts-check
/**
 * What every view of the dashboard gets: the page's configuration and the context `dashboard.js` hands each view.
 * Types only (JSDoc, erased), so the views name them without importing the module that imports the views.
 *
 * @module
 */

/** @typedef {{ chainId: string, explorerUrl: string | null, collectionAddress: string }} Network */
/** @typedef {{ assetId: string, symbol: string, decimals: number, name: string, networkName: string, mode: "sandbox" | "live" }} AssetInfo */
/** @typedef {{ networks: ReadonlyArray<Network>, assets: ReadonlyArray<AssetInfo>, eventTypes: ReadonlyArray<string> }} DashboardConfig */
/**
 * What every view gets. `isCurrent`: whether the view is still the one on screen (work that
 * finishes later checks it). `followed`: the view shows itself again after a change or an update,
 * so the focus stays where the person is.
 *
 * @typedef {{ api: import("./api.js").Api, session: import("./api.js").Session, config: DashboardConfig, query: URLSearchParams, isCurrent: () => boolean, followed?: boolean }} Context
 */

export {}
