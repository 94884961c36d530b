import { type ApiVersion, type IdempotencyStore, InvalidParams, latestStableVersion, ParamsValidation } from "@paygate/domain"
import { type ContractError, isContractError } from "../api/ErrorCodes.ts"
import { RateLimited } from "../api/HttpErrors.ts"
import { ResponseStorage } from "../api/ResponseStorage.ts"
import { Cause, Context, Effect } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError, type HttpApiEndpoint } from "effect/http-api"
import { errorResponse, internalErrorResponse, primaryError, requestFailureAsContract } from "./ErrorResponses.ts"
import { requireAsciiHeaders } from "./HeaderChecks.ts"
import { idempotencyKey, withIdempotency } from "./Idempotency.ts"
import type { RateLimiter } from "./RateLimiter.ts"
import { RequestId } from "./RequestId.ts"
import { resolveVersion } from "./ResolveVersion.ts"
import { refuseUnknownBodyFields, unknownFieldMessage, unknownFieldOf } from "./UnknownFields.ts"
import { requireWellFormedText } from "./WellFormedText.ts"

/** What an authentication step establishes about a request. */
export interface Authenticated {
  /** Idempotency is per credential's partner. */
  readonly partnerId: string
  /** What the rate limit counts against: the key (for a wallet app's public callers, the app and payment). */
  readonly keyId: string
  readonly pinnedVersion: ApiVersion
}

// Headers that carry credentials or steer the pipeline: each must be ASCII (API rules §2).
const checkedHeaders = ["api-key", "merchant-id", "app-id", "client-id", "svc-version", "idempotency-key", "csrf-token"]

const describeSchemaError = (error: HttpApiError.HttpApiSchemaError) => {
  const unknownField = error.kind === "Payload" ? unknownFieldOf(error.cause.issue) : undefined
  if (unknownField !== undefined) return new ParamsValidation({ message: unknownFieldMessage(unknownField) })
  const where = { Params: "path", Headers: "headers", Query: "query string", Payload: "request body", Body: "response", ResponseHeaders: "response" }[error.kind]
  const detail = error.cause.message.replace(/\s+/g, " ").trim()
  return new InvalidParams({ message: `Invalid ${where}: ${detail}` })
}

/**
 * Renders whatever an endpoint failed with as the contract's error response. An interruption (the
 * client went away) is no failure: it is passed on for the request middleware to record.
 */
export const renderFailures = <R>(
  request: HttpServerRequest.HttpServerRequest,
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>
) =>
  Effect.catchCause(effect, (cause) => {
    // Interruptions only: no failure in it, so the cause can be typed as failing with nothing.
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const failure = primaryError(cause)
    if (isContractError(failure)) return Effect.succeed(errorResponse(failure))
    if (HttpApiError.HttpApiSchemaError.is(failure)) return Effect.succeed(errorResponse(describeSchemaError(failure)))
    const contractual = requestFailureAsContract(failure, request)
    if (contractual !== undefined) return Effect.succeed(errorResponse(contractual))
    return Effect.gen(function*() {
      yield* Effect.logError("request failed", cause)
      return internalErrorResponse(yield* RequestId)
    })
  })

/** The services the pipeline uses, captured once when its middleware is built (providing them per request would copy the context). */
export interface PipelineServices {
  readonly rateLimiter: RateLimiter["Service"]
  readonly idempotency: IdempotencyStore["Service"]
}

/**
 * The request pipeline of every authenticated API (API rules §1 order): header ASCII → auth
 * headers → credential → version → rate limit → idempotency → well-formed strings
 * (server/WellFormedText.ts) → body/params → handler. Every failure becomes `{"code", "message"}`
 * here, and every response carries `Svc-Version`.
 */
export const pipeline = <R>(
  services: PipelineServices,
  request: HttpServerRequest.HttpServerRequest,
  inner: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
  endpoint: HttpApiEndpoint.Top,
  authenticate: Effect.Effect<Authenticated, ContractError>,
  provide: (
    version: ApiVersion
  ) => (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
) => {
  let version: ApiVersion = latestStableVersion
  // Combinators, not a generator: this runs on every request, and each step responds at once when it can.
  const handle = (auth: Authenticated, retryAfter: number | undefined) => {
    if (retryAfter !== undefined) {
      return Effect.succeed(errorResponse(new RateLimited({ message: `Too many requests; retry after ${retryAfter} s.` }), {
        "retry-after": String(retryAfter)
      }))
    }
    const handled = renderFailures(request, Effect.andThen(Effect.andThen(requireWellFormedText(endpoint), refuseUnknownBodyFields(endpoint)), provide(version)(inner)))
    if (endpoint.method !== "POST") return handled
    return Effect.flatMap(idempotencyKey(request), (key) => {
      if (key === undefined) return handled
      const scope = { partnerId: auth.partnerId, route: `${endpoint.method} ${endpoint.path}`, key }
      const storage = Context.getOrElse(endpoint.annotations, ResponseStorage, () => "transaction" as const)
      return withIdempotency(services.idempotency, request, scope, handled, storage)
    })
  }
  const authorised = (auth: Authenticated) => {
    version = auth.pinnedVersion
    return Effect.flatMap(resolveVersion(request.headers["svc-version"], auth.pinnedVersion), (resolved) => {
      version = resolved
      return Effect.flatMap(services.rateLimiter.take(auth.keyId), (retryAfter) => handle(auth, retryAfter))
    })
  }
  const responded = Effect.andThen(requireAsciiHeaders(request.headers, checkedHeaders), Effect.flatMap(authenticate, authorised))
  return Effect.map(
    Effect.catch(responded, (error) => Effect.succeed(errorResponse(error))),
    (response) => HttpServerResponse.setHeader(response, "svc-version", version)
  )
}
