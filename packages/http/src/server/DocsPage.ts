import { Effect, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { PaygateApi } from "../api/Api.ts"

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
      HttpRouter.toHttpEffect(HttpApiScalar.layer(PaygateApi, { path: "/docs", scalar: { withDefaultFonts: false } })).pipe(
        // A router of its own: the app's, memoized in the inherited map, already has this route.
        Effect.provideServiceEffect(Layer.CurrentMemoMap, Layer.makeMemoMap),
        Scope.provide(scope)
      )
    )
    yield* router.add("GET", "/docs", Effect.flatten(page))
  })
)
