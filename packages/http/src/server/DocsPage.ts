import { Effect, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
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
 * `GET /docs`: the Scalar API reference, with its script bundled and no web fonts, so the page
 * loads nothing from outside this server. The bundle (3 MB of script) is loaded and the page built
 * on the first request rather than at start: a process that never serves `/docs` does not hold
 * it (about 8 MB resident).
 */
export const DocsPage = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const page = yield* Effect.cached(
      HttpRouter.toHttpEffect(HttpApiScalar.layer(PaygateApi, { path: "/docs", scalar: docsConfig })).pipe(
        // A router of its own: the app's, memoized in the inherited map, already has this route.
        Effect.provideServiceEffect(Layer.CurrentMemoMap, Layer.makeMemoMap),
        Scope.provide(scope)
      )
    )
    yield* router.add("GET", "/docs", Effect.flatten(page))
  })
)
