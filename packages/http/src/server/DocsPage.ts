import { createHash } from "node:crypto"
import { Effect, Layer, Scope } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { PaygateApi } from "../api/Api.ts"

/**
 * Scalar's settings. The Merchant API's credentials (`Api-Key` with `Merchant-Id`) are selected
 * when the page opens: the first operations listed, and what a merchant backend starts with
 * (without a preference Scalar selects none, and "Test Request" sends no key).
 */
export const docsConfig = {
  withDefaultFonts: false,
  // The portal's icon: otherwise browsers ask for /favicon.ico, which is no route of the API.
  favicon: "/portal/assets/favicon.svg",
  authentication: { preferredSecurityScheme: [["PartnerApiKey", "MerchantId"]] }
} satisfies HttpApiScalar.ScalarConfig

/**
 * The policy of the page: its own inline scripts only (Scalar's bundle and the call that starts
 * it, allowed by their hashes: nothing injected into the page runs), requests to this origin only
 * ("Test Request" calls the API here), and no framing. Scalar adds its styles at run time, so
 * inline styles are allowed; styles cannot run script. No `eval`: the bundled Zod probes for it
 * (`new Function("")`, caught) and validates without compiling when refused; browsers report that
 * probe as a violation.
 */
export const docsPolicy = (html: string) => {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    ([, script]) => `'sha256-${createHash("sha256").update(script!).digest("base64")}'`
  )
  return [
    "default-src 'none'",
    `script-src ${hashes.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "object-src 'none'"
  ].join("; ")
}

// The page with its headers, built once from Scalar's answer (the same response every time).
const securedPages = new WeakMap<HttpServerResponse.HttpServerResponse, HttpServerResponse.HttpServerResponse>()
const secured = (response: HttpServerResponse.HttpServerResponse) => {
  const known = securedPages.get(response)
  if (known !== undefined) return known
  const html = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  const page = HttpServerResponse.setHeaders(response, {
    "content-security-policy": docsPolicy(html),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer"
  })
  securedPages.set(response, page)
  return page
}

/**
 * `GET /docs`: the Scalar API reference, with its script bundled and no web fonts, so the page
 * loads nothing from outside this server, under a Content-Security-Policy ({@link docsPolicy}).
 * The bundle (megabytes of script) is loaded and the page built on the first request rather than
 * at start: a process that never serves `/docs` does not hold it.
 */
export const DocsPage = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const page = yield* Effect.cached(
      HttpRouter.toHttpEffect(HttpApiScalar.layer(PaygateApi, { path: "/docs", scalar: docsConfig })).pipe(
        // A router of its own: the app's, memoized in the inherited map, already has this route.
        Effect.provideServiceEffect(Layer.CurrentMemoMap, Layer.makeMemoMap),
        Scope.provide(scope),
        Effect.map((serve) => Effect.map(serve, secured))
      )
    )
    yield* router.add("GET", "/docs", Effect.flatten(page))
  })
)
