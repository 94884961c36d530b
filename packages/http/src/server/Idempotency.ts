import {
  type Completing,
  IdempotencyConflict,
  type IdempotencyScope,
  type IdempotencyStore,
  idempotencyLeaseLost,
  InvalidParams,
  ParamsValidation
} from "@paygate/domain"
import { Clock, Effect, Predicate, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import type { ResponseStorage } from "../api/ResponseStorage.ts"

const decoder = new TextDecoder()

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? decoder.decode(response.body.body) : undefined

/** What a replay shows instead of a secret: secrets are shown once and never stored with a response. */
export const secretShownOnce = "(shown only in the first response)"

// Fields that hold a secret: a webhook's signing secret, a refund's claim link (its token).
const secretFields = ["secret", "claimUrl"] as const

// A stored response must not hold a secret: it is kept for 24 h in plain form, so the secret is
// replaced before storing and the replay says it was shown once.
const withoutSecret = (body: string): string => {
  if (!secretFields.some((field) => body.includes(`"${field}"`))) return body
  const parsed: unknown = JSON.parse(body)
  if (!Predicate.isObject(parsed)) return body
  const hidden = secretFields.filter((field) => field in parsed)
  return hidden.length === 0 ? body : JSON.stringify({ ...parsed, ...Object.fromEntries(hidden.map((field) => [field, secretShownOnce])) })
}

/** A JSON response of `status` with an already rendered body. */
export const jsonResponse = (status: number, body: string) =>
  HttpServerResponse.text(body, { status, contentType: "application/json" })

/** Renders values of `schema` as the JSON text HttpApi would respond with (encoded, then stringified). */
export const jsonOf = <S extends Schema.Codec<unknown, unknown>>(schema: S) => {
  const encode = Schema.encodeSync(schema)
  return (value: S["Type"]): string => JSON.stringify(encode(value))
}

/** The `Idempotency-Key` of a request, validated (API rules §5: 1–255 ASCII). */
export const idempotencyKey = (request: HttpServerRequest.HttpServerRequest) => {
  const key = request.headers["idempotency-key"]
  if (key === undefined) return Effect.succeed(undefined)
  return key.length >= 1 && key.length <= 255
    ? Effect.succeed(key)
    : Effect.fail(new ParamsValidation({ message: "Idempotency-Key must be 1 to 255 ASCII characters." }))
}

/**
 * Runs a POST at most once per key: the first completed response (any status but 5xx) is stored
 * with a hash of the body and replayed, marked `Idempotent-Replayed: true`, for the same key and
 * body; another body, or a retry while the first is in flight, is `idempotency_conflict`.
 * `handled` must already have rendered its errors as responses.
 *
 * The request's changes and its stored response commit together (`IdempotencyStore.completing`:
 * one transaction), so a crash or a lost connection between them leaves neither, and a retry after
 * the lease runs the request again instead of finding its change made and its response missing. A
 * 5xx undoes the changes. A request that outlived its lease (a retry took the key over) changes
 * nothing and responds with `idempotency_conflict`. How the response is kept with the changes is
 * the route's `storage` (`ResponseStorage`): one transaction, one held write (`completingWrite`),
 * or after the work for a handler that calls other servers.
 */
export const withIdempotency = <R>(
  store: IdempotencyStore["Service"],
  request: HttpServerRequest.HttpServerRequest,
  scope: IdempotencyScope,
  handled: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>,
  storage: ResponseStorage["Service"]
) =>
  Effect.gen(function*() {
    const body = yield* request.text.pipe(
      Effect.mapError(() => new InvalidParams({ message: "The request body could not be read (the limit is 64 KiB)." }))
    )
    const hash = createHash("sha256").update(body).digest("hex")
    const claim = yield* store.claim(scope, hash, yield* Clock.currentTimeMillis)
    if (claim._tag === "Replay") {
      return HttpServerResponse.text(claim.response.body, {
        status: claim.response.status,
        contentType: "application/json",
        headers: { "idempotent-replayed": "true" }
      })
    }
    if (claim._tag === "Conflict") {
      return yield* new IdempotencyConflict({
        message: claim.reason === "in_flight"
          ? "A request with this Idempotency-Key is still being processed."
          : "This Idempotency-Key was used with a different request body."
      })
    }
    const lease = claim.lease
    const run = Effect.map(handled, (response): Completing<HttpServerResponse.HttpServerResponse> => ({ value: response, keep: keepOf(response) }))
    if (storage === "afterWork") {
      const { keep, value } = yield* run.pipe(Effect.onError(() => store.release(lease)))
      if (keep === "undone" || keep === "released") yield* store.release(lease)
      else if (!(yield* store.complete({ lease, response: keep }))) yield* logTakenOver(scope)
      return value
    }
    // A defect or an interruption rolled the changes back (or never wrote them): the key is free for a retry at once.
    const completing = storage === "transaction" ? store.completing(lease, run) : store.completingWrite(lease, run)
    const done = yield* completing.pipe(Effect.onError(() => store.release(lease)))
    if (done.outcome !== "leaseLost") return done.value
    yield* logTakenOver(scope)
    return yield* idempotencyLeaseLost()
  })

/** What to keep of a claimed request's response (see `Completing`). */
const keepOf = (response: HttpServerResponse.HttpServerResponse): Completing<unknown>["keep"] => {
  if (response.status >= 500) return "undone"
  if (response.body._tag === "Empty") return { status: response.status, body: "" }
  const text = bodyText(response)
  return text === undefined ? "released" : { status: response.status, body: withoutSecret(text) }
}

const logTakenOver = (scope: IdempotencyScope) =>
  Effect.logWarning("idempotency key taken over by a retry after its lease; this request's answer was not kept").pipe(
    Effect.annotateLogs({ route: scope.route })
  )
