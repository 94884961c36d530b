import { type ApiError, type ApiVersion, CredentialStore, IdempotencyStore, MissingApiKey, MissingMerchantApiKey, MissingMerchantId } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { type Headers, HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { CurrentCaller, CurrentGatewayCaller, CurrentMerchantId, GatewayAuth, MerchantAuth, PartnerAuth } from "../api/Security.ts"
import { authenticateGateway } from "./GatewayCredential.ts"
import { headerValue } from "./HeaderChecks.ts"
import { authenticatePartnerKey, Environment } from "./PartnerCredential.ts"
import { type Authenticated, pipeline } from "./Pipeline.ts"
import { RateLimiter } from "./RateLimiter.ts"

type Services = CredentialStore | RateLimiter | IdempotencyStore

/** What an API family's authentication establishes, and how it hands the caller to handlers. */
interface Authentication<R> {
  readonly auth: Authenticated
  readonly provide: (
    version: ApiVersion
  ) => (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
}

/**
 * An authentication middleware over the shared pipeline: `authenticate` reads the request's
 * headers; the pipeline services are captured once when the middleware is built.
 */
const authMiddleware = <R>(
  authenticate: (headers: Headers.Headers, environment: "production" | "staging") => Effect.Effect<Authentication<R>, ApiError, CredentialStore>
) =>
  Effect.gen(function*() {
    const environment = yield* Environment
    const services = yield* Effect.context<Services>()
    return (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>, { endpoint }: { readonly endpoint: HttpApiEndpoint.Top }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        let provide: Authentication<R>["provide"] | undefined
        return yield* pipeline(
          httpEffect,
          endpoint,
          Effect.map(authenticate(request.headers, environment), (authentication) => {
            provide = authentication.provide
            return authentication.auth
          }),
          (version) => provide!(version)
        )
      }).pipe(Effect.provideContext(services))
  })

const partnerCaller = (apiKey: string, environment: "production" | "staging") =>
  Effect.map(authenticatePartnerKey(apiKey, environment), ({ auth, partner }) => ({
    auth,
    caller: { partner, mode: auth.mode, keyId: auth.keyId }
  }))

/** Partner API: `Api-Key` must be a partner secret key. */
export const PartnerAuthLive = Layer.effect(
  PartnerAuth,
  authMiddleware<CurrentCaller>((headers, environment) =>
    Effect.gen(function*() {
      const apiKey = headerValue(headers, "api-key")
      if (apiKey === undefined) return yield* new MissingApiKey({ message: "The Api-Key header is required." })
      const { auth, caller } = yield* partnerCaller(apiKey, environment)
      return { auth, provide: (version) => Effect.provideService(CurrentCaller, { ...caller, version }) }
    })
  )
)

/** Merchant API: `Api-Key` (partner secret key) and `Merchant-Id` on every request. */
export const MerchantAuthLive = Layer.effect(
  MerchantAuth,
  authMiddleware<CurrentCaller | CurrentMerchantId>((headers, environment) =>
    Effect.gen(function*() {
      const apiKey = headerValue(headers, "api-key")
      if (apiKey === undefined) return yield* new MissingMerchantApiKey({ message: "The Api-Key header is required." })
      const merchantId = headerValue(headers, "merchant-id")
      if (merchantId === undefined) return yield* new MissingMerchantId({ message: "The Merchant-Id header is required." })
      const { auth, caller } = yield* partnerCaller(apiKey, environment)
      return {
        auth,
        provide: (version) => (effect) =>
          effect.pipe(
            Effect.provideService(CurrentMerchantId, merchantId),
            Effect.provideService(CurrentCaller, { ...caller, version })
          )
      }
    })
  )
)

/** Gateway: a wallet `Api-Key`, or `App-Id` + `Client-Id`. */
export const GatewayAuthLive = Layer.effect(
  GatewayAuth,
  authMiddleware<CurrentGatewayCaller>((headers, environment) =>
    Effect.map(authenticateGateway(headers, environment), ({ auth, caller }) => ({
      auth,
      provide: (version) => Effect.provideService(CurrentGatewayCaller, { ...caller, version })
    }))
  )
)
