import { InvalidParams, latestStableVersion, publishedVersions } from "@paygate/domain"
import { ByteSize, Cause, Context, Effect, type LogLevel, References } from "effect"
import type { unhandled } from "effect/Types"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as MetricSeries from "../observability/MetricSeries.ts"
import { isDraining } from "../observability/Shutdown.ts"
import { errorResponse, internalErrorResponse, primaryError, requestFailureAsContract } from "./ErrorResponses.ts"
import { MatchedRoute, unmatchedRoute } from "./MetricsEndpoint.ts"
import { routableUrl } from "./PathIds.ts"
import { newRequestId, RequestId, RequestIdBytes } from "./RequestId.ts"

/** API rules §7: request bodies over 64 KiB are refused. */
export const maxBodyBytes = 64 * 1024

const maxBodySize = ByteSize.bytes(maxBodyBytes)

/**
 * The status an interrupted request is logged and counted with: its client went away (or the
 * server is stopping) before the response; no response was sent and nothing failed on the server's
 * side (nginx's "client closed request").
 */
export const interruptedStatus = 499

/**
 * The level of the access log line: `Info`, or `Debug` where one line per request would bury what a
 * person reads (`npm start`'s local set-up), so that `LOG_LEVEL=debug` shows them again.
 */
export const RequestLogLevel = Context.Reference<LogLevel.Severity>("@paygate/http/RequestLogLevel", { defaultValue: () => "Info" })

const echoVersion = (header: string | undefined) =>
  header !== undefined && (publishedVersions as ReadonlyArray<string>).includes(header) ? header : latestStableVersion

const tooLarge = new InvalidParams({ message: "The request body is larger than 64 KiB." })
const notJson = new InvalidParams({ message: "Request bodies must be JSON (Content-Type: application/json)." })

/**
 * The one global middleware, around every route:
 *
 * - assigns the request id (`Request-Id` header, log annotation), applies the body limit, and
 *   labels the request metrics with the matched route (server/MetricsEndpoint.ts `RouteMetrics`), all
 *   added to the request's context in one step;
 * - turns what the router responds with on its own (no route, unsupported content type, unreadable body)
 *   into contract errors, so no request ever gets a bare or non-contract response; a path id the
 *   router cannot read still reaches its route (server/PathIds.ts); an interrupted request (its
 *   client went away) is not a failure: logged and counted as {@link interruptedStatus};
 * - on the final response: `Svc-Version` when the pipeline did not set it, `Connection: close`
 *   while shutting down (observability/Shutdown.ts), the request metrics
 *   (`paygate_http_requests_total`, the duration histogram) and the access log line, which carries
 *   the request id (the router's own logger runs outside route middleware; servers run with it
 *   disabled). The path only: query strings are not logged.
 */
export const RequestMiddleware = HttpRouter.middleware(
  Effect.map(RequestIdBytes, (randomBytes) => (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) =>
    Effect.withFiber((fiber) => {
      const started = performance.now()
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const requestId = newRequestId(randomBytes)
      const matched: MatchedRoute["Service"] = { route: undefined }
      const rewritten = routableUrl(request.url)
      const annotations = { ...fiber.getRef(References.CurrentLogAnnotations), requestId }
      // One step, each service added on top of the request's context (Context.add is an overlay;
      // providing a built Context would merge, copying the whole context).
      const provide = (context: Context.Context<never>) => {
        const added = context.pipe(
          Context.add(RequestId, requestId),
          Context.add(HttpIncomingMessage.MaxBodySize, maxBodySize),
          Context.add(MatchedRoute, matched),
          Context.add(References.CurrentLogAnnotations, annotations)
        )
        return rewritten === undefined ? added : Context.add(added, HttpServerRequest.HttpServerRequest, request.modify({ url: rewritten }))
      }
      const responded = Effect.catchCause(httpEffect, (cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: interruptedStatus }))
        const contractual = requestFailureAsContract(primaryError(cause), request)
        if (contractual !== undefined) return Effect.succeed(errorResponse(contractual))
        return Effect.as(Effect.logError("unhandled request failure", cause), internalErrorResponse(requestId))
      })
      const finished = Effect.flatMap(responded, (response) => {
        const contractual = response.status === 413 ? errorResponse(tooLarge) : response.status === 415 ? errorResponse(notJson) : response
        const headers: Record<string, string> = { "request-id": requestId }
        if (contractual.headers["svc-version"] === undefined) headers["svc-version"] = echoVersion(request.headers["svc-version"])
        if (isDraining()) headers.connection = "close"
        const final = HttpServerResponse.setHeaders(contractual, headers)
        const seconds = (performance.now() - started) / 1000
        MetricSeries.recordRequest(request.method, matched.route ?? unmatchedRoute, final.status, seconds, fiber.context)
        return Effect.as(
          Effect.logWithLevel(fiber.getRef(RequestLogLevel))("request", {
            method: request.method,
            path: request.url.split("?")[0],
            status: final.status,
            durationMs: Math.round(seconds * 1000)
          }),
          final
        )
      })
      return Effect.updateContext(finished, provide)
      // This middleware responds to every failure itself; the router's type asks middleware to pass
      // unknown errors on, so the signature is widened to say so.
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest>),
  { global: true }
)
