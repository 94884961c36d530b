/**
 * Request bodies are strict: a field the operation does not document is refused with
 * `params_validation` naming it, never silently dropped (a misspelt or unsupported field would
 * otherwise look accepted: `PATCH /v1/webhooks/{id}` with `url` responding 200 and changing nothing).
 *
 * - Operations with a body decode it with `onExcessProperty: "error"` (`api/Api.ts`), which the
 *   published schemas already say (`additionalProperties: false`); {@link unknownFieldOf} finds the
 *   field in the decoding failure so that the response names it.
 * - Operations without a body never decode one: {@link refuseUnknownBodyFields} refuses a JSON
 *   object body with any field (an empty body, `{}` or `null` are what clients send and pass).
 *
 * @module
 */
import { ParamsValidation } from "@paygate/domain"
import { Context, Effect, SchemaIssue } from "effect"
import { HttpMethod, HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"

// A field name as a message shows it: plain names as they are, anything else quoted.
const segment = (key: PropertyKey, first: boolean) => {
  if (typeof key === "number") return `[${key}]`
  const name = String(key)
  if (/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(name)) return first ? name : `.${name}`
  return `[${JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name)}]`
}

const pathText = (path: ReadonlyArray<PropertyKey>) => path.map((key, index) => segment(key, index === 0)).join("")

/** The message of an unknown field at `path` (from the body's root). */
export const unknownFieldMessage = (path: ReadonlyArray<PropertyKey>) =>
  `Unknown field ${pathText(path)}: the request body may only hold the fields this operation documents (see /docs).`

/**
 * The path of the first unknown field in a decoding failure, if that is what it reports. A loop
 * over the issue tree (pointers carry the path; unions report each member's failure: an unknown
 * field in the member the value was meant for is found in it).
 */
export const unknownFieldOf = (issue: SchemaIssue.Issue): ReadonlyArray<PropertyKey> | undefined => {
  const pending: Array<readonly [SchemaIssue.Issue, ReadonlyArray<PropertyKey>]> = [[issue, []]]
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    const [item, path] = next
    switch (item._tag) {
      case "UnexpectedKey":
        return path
      case "Pointer":
        pending.push([item.issue, [...path, ...item.path]])
        break
      case "Composite":
      case "AnyOf":
        for (const inner of item.issues) pending.push([inner, path])
        break
      case "Filter":
      case "Encoding":
        pending.push([item.issue, path])
        break
    }
  }
  return undefined
}

const firstKey = (text: string): string | undefined => {
  if (!text.trimStart().startsWith("{")) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === "object" && parsed !== null ? Object.keys(parsed)[0] : undefined
  } catch {
    return undefined
  }
}

/**
 * For an operation that takes no body: fails with `params_validation` naming the first field of a
 * JSON object body (`POST /v1/api-keys` with `{"mode": "live"}` would otherwise create a key of
 * the caller's mode as if nothing had been asked).
 */
export const refuseUnknownBodyFields = (endpoint: HttpApiEndpoint.Top): Effect.Effect<void, ParamsValidation> =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    if (endpoint.payload.size > 0 || !HttpMethod.hasBody(request.method)) return Effect.void
    return Effect.flatMap(Effect.option(request.text), (text) => {
      const key = text._tag === "Some" ? firstKey(text.value) : undefined
      return key === undefined ? Effect.void : Effect.fail(new ParamsValidation({ message: unknownFieldMessage([key]) }))
    })
  })
