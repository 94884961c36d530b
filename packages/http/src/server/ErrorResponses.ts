import { InvalidParams } from "@paygate/domain"
import { type ContractError, contractErrorCode, statusOf } from "../api/ErrorCodes.ts"
import { Cause, Predicate } from "effect"
import { HttpServerResponse } from "effect/http"
import { pathIdNotFound } from "./PathIds.ts"

/** The contract's error response: `{"code", "message"}` with the code's HTTP status (API rules §1). */
export const errorResponse = (error: ContractError, headers: Record<string, string> = {}): HttpServerResponse.HttpServerResponse => {
  const code = contractErrorCode(error)
  return HttpServerResponse.jsonUnsafe({ code, message: error.message }, { status: statusOf(code), headers })
}

/** `500 internal_error`: the message repeats the request id that the log line carries; nothing internal. */
export const internalErrorResponse = (requestId: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe(
    { code: "internal_error", message: `Internal error; reference ${requestId}.` },
    { status: 500, headers }
  )

/**
 * No route for the method and path: 404 with the not-found code of the route family the path is
 * in (the contract has no other 404 code; `payment_not_found` outside every family).
 */
const noOperation = (request: { readonly method: string; readonly url: string }): ContractError => {
  const path = request.url.split(/[?#]/)[0]!
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path
  return pathIdNotFound(path.endsWith("/") ? path : `${path}/`, `No operation ${request.method} ${shown}; see /docs.`)
}

/**
 * The contract error for a failure of the HTTP machinery itself (no route, unreadable or
 * oversized body), or `undefined` when the failure is something else.
 */
export const requestFailureAsContract = (failure: unknown, request: { readonly method: string; readonly url: string }): ContractError | undefined => {
  // Router and body failures arrive as HttpServerError with the specific reason inside.
  const reason = Predicate.isTagged(failure, "HttpServerError") && Predicate.hasProperty(failure, "reason") ? failure.reason : failure
  if (Predicate.isTagged(reason, "RouteNotFound")) return noOperation(request)
  if (Predicate.isTagged(reason, "RequestParseError")) {
    return new InvalidParams({ message: "The request body could not be read; it must be JSON of at most 64 KiB." })
  }
  if (Predicate.isTagged(failure, "HttpApiPayloadTooLarge")) {
    return new InvalidParams({ message: "The request body is larger than 64 KiB." })
  }
  return undefined
}

/** The error a failed request carries: its first typed failure, else its first defect. */
export const primaryError = (cause: Cause.Cause<unknown>): unknown => {
  const fail = cause.reasons.find(Cause.isFailReason)
  if (fail !== undefined) return fail.error
  return cause.reasons.find(Cause.isDieReason)?.defect
}
