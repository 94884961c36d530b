import { type ApiVersion, Forbidden, IdempotencyStore, type Member } from "@paygate/domain"
import { type ContractError } from "../api/ErrorCodes.ts"
import { MissingApiKey, MissingMerchantApiKey, MissingMerchantId } from "../api/HttpErrors.ts"
import { Context, Effect, Layer } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CurrentCaller, CurrentGatewayCaller, CurrentMerchantId, GatewayAuth, MerchantAuth, PartnerAuth } from "../api/Security.ts"
import { csrfHeader, DashboardSessions, sessionCookie } from "./DashboardSessions.ts"
import { authenticateGateway } from "./GatewayCredential.ts"
import { headerValue } from "./HeaderChecks.ts"
import { authenticatePartnerKey, type KeyLookup, keyLookup, type PartnerAuthentication } from "./PartnerCredential.ts"
import { type Authenticated, pipeline, type PipelineServices } from "./Pipeline.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { Environment } from "../settings/Environment.ts"
import { actorOf, auditTrail } from "./AuditTrail.ts"
import { mayCall } from "./Permissions.ts"

/** What an API family's authentication establishes, and how it hands the caller to handlers. */
interface Authentication<R> {
  readonly auth: Authenticated
  readonly provide: (
    version: ApiVersion
  ) => (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
}

type Authenticate<R> = (
  keys: KeyLookup,
  request: HttpServerRequest.HttpServerRequest,
  environment: "production" | "staging",
  /** `group.endpoint`: what the request calls (server/Permissions.ts). */
  operation: string
) => Effect.Effect<Authentication<R>, ContractError>

/**
 * An authentication middleware over the shared pipeline: `authenticate` reads the request's
 * headers (and the partner API's, its session cookie). The services it and the pipeline use are captured once, when the middleware is built,
 * and passed on as values: providing their context to each request (a merge) copied the request's
 * whole context.
 */
const authMiddleware = <R>(authenticate: Authenticate<R>) =>
  Effect.gen(function*() {
    const environment = yield* Environment
    const keys = yield* keyLookup
    const services: PipelineServices = { rateLimiter: yield* RateLimiter, idempotency: yield* IdempotencyStore }
    return (
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
      { endpoint, group }: { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
    ) =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        let provide: Authentication<R>["provide"] | undefined
        const authenticated = Effect.map(authenticate(keys, request, environment, `${group.identifier}.${endpoint.identifier}`), (authentication) => {
          provide = authentication.provide
          return authentication.auth
        })
        return pipeline(services, request, httpEffect, endpoint, authenticated, (version) => provide!(version))
      })
  })

const partnerCaller = (keys: KeyLookup, apiKey: string, environment: "production" | "staging") =>
  Effect.map(authenticatePartnerKey(keys, apiKey, environment), callerOf)

const callerOf = ({ auth, partner }: PartnerAuthentication, member?: Member) => ({
  auth,
  caller: { partner, mode: auth.mode, keyId: auth.keyId, actor: actorOf(auth.keyId, member) }
})

/**
 * Partner API: `Api-Key` must be a partner secret key. Without one, a dashboard session's cookie
 * acts as the session's key (a change with the cookie needs its `Csrf-Token`); with one, any
 * cookie is ignored. A team member's session may call only what their role allows
 * (server/Permissions.ts: `forbidden` otherwise). Every change that succeeds is written to the
 * audit log with who made it (server/AuditTrail.ts).
 */
export const PartnerAuthLive = Layer.unwrap(Effect.gen(function*() {
  const sessions = yield* DashboardSessions
  const trail = yield* auditTrail
  return Layer.effect(
    PartnerAuth,
    authMiddleware<CurrentCaller>((keys, request, environment, operation) =>
      Effect.gen(function*() {
        const apiKey = headerValue(request.headers, "api-key")
        const session = request.cookies[sessionCookie]
        let found: ReturnType<typeof callerOf>
        if (apiKey !== undefined) found = yield* partnerCaller(keys, apiKey, environment)
        else if (session !== undefined && session !== "") {
          const csrfToken = request.headers[csrfHeader]
          const opened = yield* sessions.authenticate(session, { method: request.method, csrfToken, headers: request.headers }, environment)
          if (opened.member !== undefined && !mayCall(opened.member.role, operation)) {
            return yield* new Forbidden({ message: `Your role (${opened.member.role}) does not allow this; ask an owner of the team.` })
          }
          found = callerOf(opened, opened.member)
        } else return yield* new MissingApiKey({ message: "The Api-Key header is required." })
        const { auth, caller } = found
        return {
          auth,
          provide: (version) => (effect) => trail(request, operation, caller, Effect.provideService(effect, CurrentCaller, { ...caller, version }))
        }
      })
    )
  )
}))

/** Merchant API: `Api-Key` (partner secret key) and `Merchant-Id` on every request. */
export const MerchantAuthLive = Layer.effect(
  MerchantAuth,
  // Combinators, not a generator: this runs on every merchant API request.
  authMiddleware<CurrentCaller | CurrentMerchantId>((keys, request, environment) => {
    const apiKey = headerValue(request.headers, "api-key")
    if (apiKey === undefined) return Effect.fail(new MissingMerchantApiKey({ message: "The Api-Key header is required." }))
    const merchantId = headerValue(request.headers, "merchant-id")
    if (merchantId === undefined) return Effect.fail(new MissingMerchantId({ message: "The Merchant-Id header is required." }))
    return Effect.map(partnerCaller(keys, apiKey, environment), ({ auth, caller }) => ({
      auth,
      // Both added in one step (Context.add is an overlay; providing a built Context would copy the request's).
      provide: (version: ApiVersion) =>
        Effect.updateContext((context: Context.Context<never>) =>
          context.pipe(Context.add(CurrentMerchantId, merchantId), Context.add(CurrentCaller, { ...caller, version }))
        )
    }))
  })
)

/** Gateway: a wallet `Api-Key`, or `App-Id` + `Client-Id`. */
export const GatewayAuthLive = Layer.effect(
  GatewayAuth,
  authMiddleware<CurrentGatewayCaller>((keys, request, environment) =>
    Effect.map(authenticateGateway(keys, request.headers, request.url, environment), ({ auth, caller }) => ({
      auth,
      provide: (version) => Effect.provideService(CurrentGatewayCaller, { ...caller, version })
    }))
  )
)
