import { InvalidParams, latestStableVersion, publishedVersions } from "@paygate/domain"
import { ByteSize, Clock, Effect } from "effect"
import type { unhandled } from "effect/Types"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { errorResponse, internalErrorResponse, primaryError, requestFailureAsContract } from "./ErrorResponses.ts"
import { routableUrl } from "./PathIds.ts"
import { newRequestId, RequestId } from "./RequestId.ts"

/** Contract §11: request bodies over 64 KiB are refused. */
export const maxBodyBytes = 64 * 1024

const echoVersion = (header: string | undefined) =>
  header !== undefined && (publishedVersions as ReadonlyArray<string>).includes(header) ? header : latestStableVersion

/**
 * Wraps every route: assigns the request id (`Request-Id` header, log annotation), applies the
 * body limit, and turns what the router answers on its own (no route, unsupported content type,
 * unreadable body) into contract errors, so no request ever gets a bare or non-contract answer;
 * a path id the router cannot read still reaches its route (server/PathIds.ts).
 * It also writes the access log line, so that line carries the request id too (the router's own
 * logger runs outside route middleware; servers run with it disabled).
 */
export const FallbackMiddleware = HttpRouter.middleware(
  (httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = newRequestId()
      const started = yield* Clock.currentTimeMillis
      const rewritten = routableUrl(request.url)
      const routed = rewritten === undefined
        ? httpEffect
        : Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request.modify({ url: rewritten }))
      const response = yield* routed.pipe(
        Effect.provideService(RequestId, requestId),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)),
        Effect.annotateLogs({ requestId }),
        Effect.catchCause((cause) => {
          const contractual = requestFailureAsContract(primaryError(cause), request)
          if (contractual !== undefined) return Effect.succeed(errorResponse(contractual))
          return Effect.logError("unhandled request failure", cause).pipe(
            Effect.annotateLogs({ requestId }),
            Effect.as(internalErrorResponse(requestId))
          )
        })
      )
      const contractual = response.status === 415 || response.status === 413
        ? errorResponse(new InvalidParams({ message: response.status === 413 ? "The request body is larger than 64 KiB." : "Request bodies must be JSON (Content-Type: application/json)." }))
        : response
      const tagged = HttpServerResponse.setHeader(contractual, "request-id", requestId)
      // The path only: query strings are not logged.
      yield* Effect.logInfo("request", {
        method: request.method,
        path: request.url.split("?")[0],
        status: tagged.status,
        durationMs: (yield* Clock.currentTimeMillis) - started
      }).pipe(Effect.annotateLogs({ requestId }))
      return tagged.headers["svc-version"] === undefined
        ? HttpServerResponse.setHeader(tagged, "svc-version", echoVersion(request.headers["svc-version"]))
        : tagged
      // This middleware answers every failure itself; the router's type asks middleware to pass
      // unknown errors on, so the signature is widened to say so.
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest>,
  { global: true }
)
