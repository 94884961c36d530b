import { CredentialStore, IdempotencyStore, MissingApiKey, MissingMerchantApiKey, MissingMerchantId } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { CurrentCaller, CurrentMerchantId, MerchantAuth, PartnerAuth } from "../api/Security.ts"
import { headerValue } from "./HeaderChecks.ts"
import { authenticatePartnerKey, Environment } from "./PartnerCredential.ts"
import { pipeline } from "./Pipeline.ts"
import { RateLimiter } from "./RateLimiter.ts"

// The services a request's pipeline uses, captured once when the middleware is built.
const pipelineServices = Effect.gen(function*() {
  const environment = yield* Environment
  const services = yield* Effect.context<CredentialStore | RateLimiter | IdempotencyStore>()
  return { environment, services }
})

/** Partner API: `Api-Key` must be a partner secret key. */
export const PartnerAuthLive = Layer.effect(
  PartnerAuth,
  Effect.map(pipelineServices, ({ environment, services }) => (httpEffect, { endpoint }) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      let caller: CurrentCaller["Service"] | undefined
      return yield* pipeline(
        httpEffect,
        endpoint,
        Effect.gen(function*() {
          const apiKey = headerValue(request.headers, "api-key")
          if (apiKey === undefined) return yield* new MissingApiKey({ message: "The Api-Key header is required." })
          const { auth, partner } = yield* authenticatePartnerKey(apiKey, environment)
          caller = { partner, mode: auth.mode, keyId: auth.keyId, version: auth.pinnedVersion }
          return auth
        }),
        (version) => Effect.provideService(CurrentCaller, { ...caller!, version })
      )
    }).pipe(Effect.provideContext(services))
  )
)

/** Merchant API: `Api-Key` (partner secret key) and `Merchant-Id` on every request. */
export const MerchantAuthLive = Layer.effect(
  MerchantAuth,
  Effect.map(pipelineServices, ({ environment, services }) => (httpEffect, { endpoint }) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      let caller: CurrentCaller["Service"] | undefined
      let merchantId = ""
      return yield* pipeline(
        httpEffect,
        endpoint,
        Effect.gen(function*() {
          const apiKey = headerValue(request.headers, "api-key")
          if (apiKey === undefined) return yield* new MissingMerchantApiKey({ message: "The Api-Key header is required." })
          const id = headerValue(request.headers, "merchant-id")
          if (id === undefined) return yield* new MissingMerchantId({ message: "The Merchant-Id header is required." })
          merchantId = id
          const { auth, partner } = yield* authenticatePartnerKey(apiKey, environment)
          caller = { partner, mode: auth.mode, keyId: auth.keyId, version: auth.pinnedVersion }
          return auth
        }),
        (version) => (effect) =>
          effect.pipe(
            Effect.provideService(CurrentMerchantId, merchantId),
            Effect.provideService(CurrentCaller, { ...caller!, version })
          )
      )
    }).pipe(Effect.provideContext(services))
  )
)
