import { Effect, Schema } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"

/** One page of a list operation: `{"data": [...], "nextCursor": string | null}` (API rules §11). */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/** Position after which the next page starts, in creation order. Opaque to clients. */
export interface Cursor {
  /** Unix milliseconds of the last item of the previous page. */
  readonly createdAt: number
  /** Id of the last item of the previous page (breaks ties between equal timestamps). */
  readonly id: string
}

/** A list request's paging: `limit` 1–100 (default 20) and an optional cursor. */
export interface PageRequest {
  readonly limit: number
  readonly after: Cursor | null
}

const CursorJson = Schema.fromJsonString(Schema.Struct({ t: Schema.Int, i: Schema.String }))
const decodeCursor = Schema.decodeUnknownEffect(CursorJson)

const toBase64Url = (text: string) => {
  const bytes = new TextEncoder().encode(text)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const fromBase64Url = (text: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"))
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
  } catch {
    return undefined
  }
}

/** The opaque form of a cursor. */
export const encodeCursor = (cursor: Cursor): string => toBase64Url(JSON.stringify({ t: cursor.createdAt, i: cursor.id }))

/** Validates `limit` and `cursor` query values; malformed ones are `invalid_params` (API rules §1). */
export const pageRequest = (input: { readonly limit?: string | number | undefined; readonly cursor?: string | undefined }): Effect.Effect<PageRequest, InvalidParams> =>
  Effect.gen(function*() {
    const limitText = input.limit === undefined ? "20" : String(input.limit)
    if (!/^[1-9][0-9]{0,2}$/.test(limitText) || Number(limitText) > 100) {
      return yield* new InvalidParams({ message: "limit must be an integer from 1 to 100." })
    }
    if (input.cursor === undefined || input.cursor === "") return { limit: Number(limitText), after: null }
    const json = fromBase64Url(input.cursor)
    const parsed = json === undefined
      ? undefined
      : yield* decodeCursor(json).pipe(Effect.orElseSucceed(() => undefined))
    if (parsed === undefined) return yield* new InvalidParams({ message: "cursor is not a cursor this service issued." })
    return { limit: Number(limitText), after: { createdAt: parsed.t, id: parsed.i } }
  })

/**
 * Builds a page from up to `limit + 1` rows fetched in order: the extra row only tells that
 * another page exists.
 */
export const toPage = <A extends { readonly createdAt: number; readonly id: string }>(
  rows: ReadonlyArray<A>,
  limit: number
): Page<A> => {
  const data = rows.slice(0, limit)
  const last = data.at(-1)
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null }
}

/** Creation order with the id as tie-breaker: the order every list operation pages in. */
export const compareCreation = (a: Cursor, b: Cursor): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Whether `item` comes after `cursor` when listing in `order`. */
export const isAfterCursor = (item: Cursor, cursor: Cursor | null, order: "asc" | "desc"): boolean =>
  cursor === null || (order === "asc" ? compareCreation(item, cursor) > 0 : compareCreation(item, cursor) < 0)
