/**
 * `SanctionsScreening` from a list of addresses in a file (`SANCTIONS_FILE`), read when the layer
 * is built.
 *
 * The file has one entry per line: a CAIP-10 account (`eip155:1:0xabc…`) or a bare EVM address
 * (`0xabc…`, 40 hex digits), which matches that address on every eip155 chain. Blank lines and
 * everything from `#` to the end of a line are ignored. Addresses match case-insensitively (EIP-55
 * checksums are not required, in the file or in requests). A line that is neither form stops
 * start-up with its line number: a list that is silently only partly applied would let a sanctioned
 * buyer pay.
 *
 * Without `SANCTIONS_FILE` the list is empty (nobody is screened out), and a warning says so once,
 * at start. A `SANCTIONS_FILE` that cannot be read stops start-up.
 *
 * @module
 */
import { SanctionsScreening } from "@paygate/domain"
import { Config, Effect, Layer, Option, Schema } from "effect"
import { readFile } from "node:fs/promises"
import * as Configuration from "./Configuration.ts"

/** Name of the environment variable {@link layerFromConfig} reads. */
export const envVar = Configuration.sanctionsFileVariable

/** The sanctions list cannot be read or has a malformed line. */
export class SanctionsListError extends Schema.TaggedError<SanctionsListError>()("SanctionsListError", {
  message: Schema.String
}) {}

/** A parsed list: exact CAIP-10 accounts and bare EVM addresses, both lower-cased. */
export interface SanctionsEntries {
  readonly accounts: ReadonlySet<string>
  readonly evmAddresses: ReadonlySet<string>
}

const bareEvm = /^0x[0-9a-fA-F]{40}$/
// CAIP-10: namespace:reference:address (CAIP-2 then the account address).
const caip10 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/

/** Parses the text of a list; fails naming every malformed line. */
export const parse = (text: string): Effect.Effect<SanctionsEntries, SanctionsListError> => {
  const accounts = new Set<string>()
  const evmAddresses = new Set<string>()
  const bad: Array<number> = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const hash = raw.indexOf("#")
    const line = (hash === -1 ? raw : raw.slice(0, hash)).trim()
    if (line === "") return
    if (bareEvm.test(line)) evmAddresses.add(line.toLowerCase())
    else if (caip10.test(line)) accounts.add(line.toLowerCase())
    else bad.push(i + 1)
  })
  if (bad.length > 0) {
    return Effect.fail(new SanctionsListError({
      message: `The sanctions list has malformed entries on line(s) ${bad.join(", ")}: expected a CAIP-10 account or a 0x address.`
    }))
  }
  return Effect.succeed({ accounts, evmAddresses })
}

/** Screening against parsed entries. */
export const screening = (entries: SanctionsEntries): SanctionsScreening["Service"] =>
  SanctionsScreening.of({
    isSanctioned: (account) =>
      Effect.sync(() => {
        const lower = account.toLowerCase()
        if (entries.accounts.has(lower)) return true
        const match = caip10.exec(account)
        return match !== null && match[1] === "eip155" && entries.evmAddresses.has(match[3]!.toLowerCase())
      })
  })

/** Screening against the list in `text` (the file's contents). */
export const layerFromText = (text: string): Layer.Layer<SanctionsScreening, SanctionsListError> =>
  Layer.effect(SanctionsScreening, Effect.map(parse(text), screening))

/** Screening against the list in the file at `path`, read when the layer is built. */
export const layerFromFile = (path: string): Layer.Layer<SanctionsScreening, SanctionsListError> =>
  Layer.effect(
    SanctionsScreening,
    Effect.gen(function*() {
      const text = yield* Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: (error) => new SanctionsListError({ message: `Cannot read the sanctions list ${path}: ${String(error)}` })
      })
      const entries = yield* parse(text)
      yield* Effect.logInfo(`Sanctions list: ${entries.accounts.size + entries.evmAddresses.size} entries from ${path}`)
      return screening(entries)
    })
  )

/** An empty list: nobody is sanctioned. */
export const layerEmpty: Layer.Layer<SanctionsScreening> = Layer.succeed(
  SanctionsScreening,
  screening({ accounts: new Set(), evmAddresses: new Set() })
)

/** The list of `SANCTIONS_FILE`; without it, an empty list and one warning. */
export const layerFromConfig: Layer.Layer<SanctionsScreening, SanctionsListError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const path = yield* Configuration.sanctionsFile
    if (Option.isSome(path)) return layerFromFile(path.value.trim())
    yield* Effect.logWarning(`${envVar} is not set: no account is screened against a sanctions list (fine for testing; set it before taking live payments).`)
    return layerEmpty
  })
)
