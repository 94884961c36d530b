import { HeaderNotAscii } from "../api/HttpErrors.ts"
import { Effect } from "effect"
import type { Headers } from "effect/http"

// Node hands header bytes over as latin1 characters: anything above 0x7e (or a control) was not ASCII.
const printableAscii = /^[\x20-\x7e]*$/

const displayName = (name: string) => name.split("-").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("-")

/** Fails with `header_not_ascii` when one of the named (lower-case) headers holds a non-ASCII byte. */
export const requireAsciiHeaders = (headers: Headers.Headers, names: ReadonlyArray<string>) => {
  for (const name of names) {
    const value = headers[name]
    if (value !== undefined && !printableAscii.test(value)) {
      return Effect.fail(new HeaderNotAscii({ message: `The ${displayName(name)} header must contain only printable ASCII characters.` }))
    }
  }
  return Effect.void
}

/** A header value, with an empty value treated as absent. */
export const headerValue = (headers: Headers.Headers, name: string): string | undefined => {
  const value = headers[name]
  return value === undefined || value.trim() === "" ? undefined : value
}
