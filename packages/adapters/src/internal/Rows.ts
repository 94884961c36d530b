/**
 * Column conversions shared by the SQL adapters. Every `*_at` column is Unix milliseconds in a
 * `bigint` (the driver answers a JS `bigint`); some domain fields are Unix seconds.
 *
 * @module
 */

/** An integer column value (`bigint`, `integer`, or text of digits) as a safe JS integer; throws otherwise. */
export const toInt = (value: unknown): number => {
  const n = typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new Error(`Expected a safe integer column value, got ${String(value)}`)
  return n
}

/** Like {@link toInt}, with SQL `NULL` as `null`. */
export const toIntOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toInt(value))

/** Unix seconds (domain) to the milliseconds stored. */
export const secondsToMillis = (seconds: number): number => seconds * 1000

/** Stored milliseconds back to the domain's Unix seconds. */
export const millisToSeconds = (value: unknown): number => Math.floor(toInt(value) / 1000)

/** Like {@link millisToSeconds}, with SQL `NULL` as `null`. */
export const millisToSecondsOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : millisToSeconds(value)

/** A JSON value as the text bound to a `jsonb` parameter (`NULL` stays `NULL`). */
export const jsonText = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

/** A `jsonb` column as the driver answers it: parsed, or the text when it came back unparsed. */
export const fromJsonColumn = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)
