/**
 * What a delivery attempt sent and what the receiver answered, as kept for the delivery log:
 * the request's headers (none of them secret: the signature is a MAC, never the key) and the
 * response's status, a few of its headers and the start of its body.
 *
 * A receiver's response is hostile input: at most {@link responseBodyLimit} bytes of its body are
 * read, decoded as UTF-8 with invalid sequences replaced, and NUL (which PostgreSQL text refuses)
 * replaced too; header values are cut to {@link headerValueLimit} characters.
 *
 * @module
 */
import { Schema } from "effect"

/** Most bytes of a response's body that are read and kept. */
export const responseBodyLimit = 2048

/** Most characters kept of one header value. */
export const headerValueLimit = 256

/** The response headers worth seeing in a delivery log (lower case). */
export const keptResponseHeaders: ReadonlyArray<string> = ["content-type", "content-length", "location", "retry-after"]

/** A few headers, by lower-case name. */
export const HeaderMap = Schema.Record(Schema.String, Schema.String)

/** The receiver's response to one attempt. */
export class DeliveryResponse extends Schema.Class<DeliveryResponse>("paygate/DeliveryResponse")({
  /** HTTP status. */
  status: Schema.Int,
  /** The kept headers ({@link keptResponseHeaders}) that the response had. */
  headers: HeaderMap,
  /** The body's first bytes as text (see the module comment); empty when it had none. */
  body: Schema.String,
  /** The body was longer than what is kept, or did not arrive whole in time. */
  truncated: Schema.Boolean
}) {}

// NUL and the replacement of invalid UTF-8 are the only changes: other control characters are
// valid text and a page shows them as text.
const clean = (text: string): string => text.replaceAll("\u0000", "\uFFFD")

/** A header value as kept: at most {@link headerValueLimit} characters, NUL replaced. */
export const keptHeaderValue = (value: string): string => clean(value.slice(0, headerValueLimit))

/**
 * The kept response headers of a response's headers (names in any case; a repeated header's
 * values joined with `, `).
 */
export const keptHeaders = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (value === undefined || !keptResponseHeaders.includes(lower)) continue
    kept[lower] = keptHeaderValue(typeof value === "string" ? value : value.join(", "))
  }
  return kept
}

/**
 * The body as kept: the first {@link responseBodyLimit} bytes decoded as UTF-8 (invalid sequences
 * replaced by U+FFFD; a character cut by the limit, or by `cut` short, is dropped), NUL replaced.
 */
export const keptBody = (bytes: Uint8Array, cut: boolean): string =>
  clean(
    new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes.subarray(0, responseBodyLimit), {
      stream: cut || bytes.length > responseBodyLimit
    })
  )

/** The response as kept, from what was read of it. */
export const responseOf = (answer: {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: Uint8Array
  readonly truncated: boolean
}): DeliveryResponse =>
  new DeliveryResponse({
    status: answer.status,
    headers: keptHeaders(answer.headers),
    body: keptBody(answer.body, answer.truncated),
    truncated: answer.truncated || answer.body.length > responseBodyLimit
  })
