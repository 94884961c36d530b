import { InvalidParams, ParamsValidation } from "@paygate/domain"
import { Context, Effect, Option } from "effect"
import { HttpMethod, HttpRouter, HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { pathIdNotFound } from "./PathIds.ts"

/**
 * Every string a request carries is well-formed text, checked once for every route of the
 * authenticated APIs before their handlers run.
 *
 * Why: strings end up in PostgreSQL, whose text is UTF-8 without U+0000. A NUL is refused there
 * (`invalid byte sequence for encoding "UTF8": 0x00`: a 500), and so is a lone UTF-16 surrogate
 * (`"\ud800"` in JSON) inside a `jsonb` value (a 500), while a `text` column silently gets U+FFFD
 * for it. So a path id, query value or JSON body string with either, or with a percent-encoding or
 * body bytes that are not UTF-8, never gets past this point: a path id is the route's not-found
 * (API rules §8), a query or body string `params_validation`, a body that is not UTF-8 at all
 * `invalid_params` (malformed JSON).
 *
 * @module
 */

/** True when `text` can be stored as it is: no NUL and no lone surrogate. */
export const isWellFormedText = (text: string): boolean => text.isWellFormed() && !text.includes("\0")

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })
const notText = "must be well-formed UTF-8 text without NUL (U+0000) characters"

// A `%` that starts no escape stays a `%`, as the router reads it; an escape that is not UTF-8 fails.
const decoded = (component: string): string | undefined => {
  try {
    return decodeURIComponent(component.replaceAll("+", " ").replace(/%(?![0-9A-Fa-f]{2})/g, "%25"))
  } catch {
    return undefined
  }
}

// The raw query (where the router takes it from: after the first `?`, `;` or `#`), pair by pair,
// so that an escape the router keeps undecoded because it is not UTF-8 (`%FF`) is seen too.
const checkQuery = (url: string): ParamsValidation | undefined => {
  const start = url.search(/[?;#]/)
  if (start === -1) return undefined
  for (const pair of url.slice(start + 1).split("&")) {
    const text = decoded(pair)
    if (text === undefined || !isWellFormedText(text)) {
      const name = decoded(pair.split("=")[0]!)
      const which = name !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? `The query parameter ${name}` : "Each query parameter"
      return new ParamsValidation({ message: `${which} ${notText}.` })
    }
  }
  return undefined
}

// The JSON path of the first string (value or key) of `value` that is not well-formed, if any.
// A loop, not recursion: a 64 KiB body can nest thousands of levels deep.
const badStringIn = (value: unknown): string | undefined => {
  const pending: Array<readonly [unknown, string]> = [[value, ""]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next
    if (typeof item === "string") {
      if (!isWellFormedText(item)) return path === "" ? "the request body" : path
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => pending.push([element, `${path}[${index}]`]))
    } else if (typeof item === "object" && item !== null) {
      for (const [key, element] of Object.entries(item)) {
        if (!isWellFormedText(key)) return `a key of ${path === "" ? "the request body" : path}`
        pending.push([element, path === "" ? key : `${path}.${key}`])
      }
    }
  }
  return undefined
}

const isJson = (contentType: string | undefined) =>
  (contentType ?? "application/json").split(";")[0]!.trim().toLowerCase() === "application/json"

// JSON bodies only (the only kind the API decodes; others are refused after this, as before).
const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    // Unreadable or too large: the endpoint's own decoding reports it, from the same cached read.
    const text = yield* Effect.option(request.text)
    if (Option.isNone(text)) return
    // The decoder put U+FFFD for bytes that are not UTF-8 (a real U+FFFD is fine).
    if (text.value.includes("\uFFFD")) {
      const bytes = yield* request.arrayBuffer.pipe(Effect.orDie)
      try {
        strictUtf8.decode(bytes)
      } catch {
        return yield* new InvalidParams({ message: "The request body is not valid UTF-8." })
      }
    }
    // JSON can only carry a NUL or a lone surrogate as a `\u` escape; without one there is nothing to look at.
    if (!text.value.includes("\\u")) return
    let parsed: unknown
    try {
      parsed = JSON.parse(text.value)
    } catch {
      return // malformed JSON: the endpoint's decoding responds with invalid_params
    }
    const where = badStringIn(parsed)
    if (where !== undefined) return yield* new ParamsValidation({ message: `${where} ${notText}.` })
  })

/**
 * Fails when a string of the request is not well-formed text: query values and JSON body strings
 * with `params_validation` (400, or `invalid_params` for a body that is not UTF-8), then path ids
 * with the route's not-found code (404), as the lookup that would have found nothing responds after
 * the body and query checks (API rules §1). Only a JSON body is read (an effect); the rest is
 * checked at once, on every request of the authenticated APIs.
 */
export const requireWellFormedText = (endpoint: HttpApiEndpoint.Top): Effect.Effect<void, ParamsValidation | InvalidParams | ReturnType<typeof pathIdNotFound>> =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const query = checkQuery(request.url)
    if (query !== undefined) return Effect.fail(query)
    const { params } = Context.getUnsafe(fiber.context, HttpRouter.RouteContext)
    const paths = () => {
      for (const value of Object.values(params)) {
        if (value !== undefined && !isWellFormedText(value)) return Effect.fail(pathIdNotFound(endpoint.path))
      }
      return Effect.void
    }
    return endpoint.payload.size > 0 && HttpMethod.hasBody(request.method) && isJson(request.headers["content-type"])
      ? Effect.andThen(checkBody(request), Effect.suspend(paths))
      : paths()
  })
