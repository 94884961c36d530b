import {
  type ApiError,
  type ApiVersion,
  InvalidParams,
  isApiError,
  latestStableVersion,
  RateLimited,
  resolveVersion
} from "@paygate/domain"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError, type HttpApiEndpoint } from "effect/http-api"
import { errorResponse, internalErrorResponse, primaryError, requestFailureAsContract } from "./ErrorResponses.ts"
import { requireAsciiHeaders } from "./HeaderChecks.ts"
import { idempotencyKey, withIdempotency } from "./Idempotency.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { RequestId } from "./RequestId.ts"
import { requireWellFormedText } from "./WellFormedText.ts"

/** What an authentication step establishes about a request. */
export interface Authenticated {
  /** Rate limit and idempotency are per credential's partner. */
  readonly partnerId: string
  readonly keyId: string
  readonly pinnedVersion: ApiVersion
}

// Headers that carry credentials or steer the pipeline: each must be ASCII (contract §3).
const checkedHeaders = ["api-key", "merchant-id", "app-id", "client-id", "svc-version", "idempotency-key"]

const describeSchemaError = (error: HttpApiError.HttpApiSchemaError) => {
  const where = { Params: "path", Headers: "headers", Query: "query string", Payload: "request body", Body: "response", ResponseHeaders: "response" }[error.kind]
  const detail = error.cause.message.replace(/\s+/g, " ").trim()
  return new InvalidParams({ message: `Invalid ${where}: ${detail}` })
}

/** Renders whatever an endpoint failed with as the contract's error answer. */
const renderFailures = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
  Effect.catchCause(effect, (cause) =>
    Effect.gen(function*() {
      const failure = primaryError(cause)
      if (isApiError(failure)) return errorResponse(failure)
      if (HttpApiError.HttpApiSchemaError.is(failure)) return errorResponse(describeSchemaError(failure))
      const contractual = requestFailureAsContract(failure, yield* HttpServerRequest.HttpServerRequest)
      if (contractual !== undefined) return errorResponse(contractual)
      const requestId = yield* RequestId
      yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId }))
      return internalErrorResponse(requestId)
    })
  )

/**
 * The request pipeline of every authenticated API (contract §2 order): header ASCII → auth
 * headers → credential → version → rate limit → idempotency → well-formed strings
 * (server/WellFormedText.ts) → body/params → handler. Every failure becomes `{"code", "message"}`
 * here, and every response carries `Svc-Version`.
 */
export const pipeline = <R, RA>(
  inner: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
  endpoint: HttpApiEndpoint.Top,
  authenticate: Effect.Effect<Authenticated, ApiError, RA>,
  provide: (
    version: ApiVersion
  ) => (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    let version: ApiVersion = latestStableVersion
    const response = yield* Effect.gen(function*() {
      yield* requireAsciiHeaders(request.headers, checkedHeaders)
      const auth = yield* authenticate
      version = auth.pinnedVersion
      version = yield* resolveVersion(request.headers["svc-version"], auth.pinnedVersion)
      const retryAfter = yield* (yield* RateLimiter).take(auth.keyId)
      if (retryAfter !== undefined) {
        return errorResponse(new RateLimited({ message: `Too many requests; retry after ${retryAfter} s.` }), {
          "retry-after": String(retryAfter)
        })
      }
      const handled = renderFailures(Effect.andThen(requireWellFormedText(endpoint), provide(version)(inner)))
      const key = endpoint.method === "POST" ? yield* idempotencyKey(request) : undefined
      if (key === undefined) return yield* handled
      return yield* withIdempotency({ partnerId: auth.partnerId, route: `${endpoint.method} ${endpoint.path}`, key }, handled)
    }).pipe(Effect.catch((error) => Effect.succeed(errorResponse(error))))
    return HttpServerResponse.setHeader(response, "svc-version", version)
  })
