/**
 * Whether a browser says a request was made by a page of another origin: `Sec-Fetch-Site` other
 * than `same-origin` (or `none`, a request the user made), or an `Origin` that is neither this
 * request's own host nor `PUBLIC_URL`'s origin (`null` included: sandboxed and opaque pages).
 * Requests carrying neither header (servers, command-line clients) are not browsers' and pass.
 *
 * The dashboard's cookie-authenticated requests and its sign-in refuse cross-site requests, beside
 * the CSRF token: a form on another site can send a body and, at sign-in, gets a cookie set
 * rather than used, which SameSite does not stop.
 *
 * @module
 */

/** The origin of `PUBLIC_URL` (e.g. `https://pay.example`), when it is a URL. */
export const originOf = (url: string): string | undefined => {
  try {
    const parsed = new URL(url.trim())
    return parsed.origin === "null" ? undefined : parsed.origin
  } catch {
    return undefined
  }
}

/** See the module comment; `publicOrigin`: {@link originOf} `PUBLIC_URL`. */
export const isCrossSite = (headers: { readonly [name: string]: string | undefined }, publicOrigin: string | undefined): boolean => {
  const site = headers["sec-fetch-site"]?.trim().toLowerCase()
  if (site !== undefined && site !== "same-origin" && site !== "none") return true
  const origin = headers.origin?.trim()
  if (origin === undefined) return false
  if (origin === publicOrigin) return false
  try {
    const parsed = new URL(origin)
    return parsed.origin === "null" || parsed.host !== (headers.host ?? "").trim().toLowerCase()
  } catch {
    return true
  }
}
