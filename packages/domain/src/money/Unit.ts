import { Effect, Schema, SchemaGetter, SchemaIssue } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { CurrencyCode } from "./Currency.ts"

/** Prefix of a fiat unit, followed by an ISO 4217 code: `iso4217/USD`. */
export const fiatUnitPrefix = "iso4217/"

/** Prefix of a token unit, followed by a CAIP-19 asset id: `caip19/eip155:1/erc20:0xA0b8…`. */
export const tokenUnitPrefix = "caip19/"

/**
 * Structural shape of a CAIP-19 asset id (chain id / asset namespace : reference, optional token id).
 * Deliberately light: full CAIP validation, including per-namespace rules, lives with the CAIP parser.
 */
export const caip19AssetIdPattern: RegExp =
  /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}(\/[-.%a-zA-Z0-9]{1,78})?$/

const assetIdMessage = 'token unit must be "caip19/" followed by a CAIP-19 asset id, e.g. "caip19/eip155:1/erc20:0x…".'

/** The unit an amount is counted in: minor units of a fiat currency, or base units of a token. */
export const Unit = Schema.TaggedUnion({
  Fiat: { currency: CurrencyCode },
  Token: {
    assetId: Schema.String.pipe(Schema.check(Schema.isPattern(caip19AssetIdPattern, { message: assetIdMessage })))
  }
})

/** The unit an amount is counted in: `{ _tag: "Fiat", currency }` or `{ _tag: "Token", assetId }`. */
export type Unit = typeof Unit.Type

/** A fiat unit: amounts are integer minor units per the currency's ISO 4217 exponent. */
export type FiatUnit = typeof Unit.cases.Fiat.Type

/** A token unit: amounts are integer base units of the asset. */
export type TokenUnit = typeof Unit.cases.Token.Type

const prefixMessage = `unit must be "${fiatUnitPrefix}<currency code>" (e.g. "iso4217/USD") or "${tokenUnitPrefix}<CAIP-19 asset id>".`

/** Splits the wire string by prefix; the {@link Unit} schema then validates the part after it. */
const splitUnit = (text: string): Effect.Effect<typeof Unit.Encoded, SchemaIssue.Issue> => {
  if (text.startsWith(fiatUnitPrefix)) {
    return Effect.succeed({ _tag: "Fiat", currency: text.slice(fiatUnitPrefix.length) })
  }
  if (text.startsWith(tokenUnitPrefix)) {
    return Effect.succeed({ _tag: "Token", assetId: text.slice(tokenUnitPrefix.length) })
  }
  return Effect.fail(new SchemaIssue.InvalidValue({ message: prefixMessage }, text))
}

// Typed on the encoded form so the schema's encoder can use it too; a decoded Unit is a subtype.
const joinUnit = (unit: typeof Unit.Encoded): string =>
  unit._tag === "Fiat" ? `${fiatUnitPrefix}${unit.currency}` : `${tokenUnitPrefix}${unit.assetId}`

/** Formats a unit in its wire form: `iso4217/USD` or `caip19/<asset id>`. */
export const formatUnit = (unit: Unit): string => joinUnit(unit)

/** The wire `unit` string (API rules §9), decoding to a {@link Unit} and encoding back to the same string. */
export const UnitFromString = Schema.String.pipe(
  Schema.decodeTo(Unit, {
    decode: SchemaGetter.transformEffect(splitUnit),
    encode: SchemaGetter.transform(joinUnit)
  })
)

// Issues from inside the union carry a path (`at ["currency"]`) that means nothing to API users.
const firstLine = (message: string): string => message.split("\n")[0] ?? message

/**
 * Parses a wire unit such as `iso4217/USD` or `caip19/eip155:1/erc20:0x…`, failing with
 * {@link ParamsValidation} for an unknown prefix, a malformed or unknown currency, or a malformed asset id.
 */
export const parseUnit = (text: string): Effect.Effect<Unit, ParamsValidation> =>
  Schema.decodeUnknownEffect(UnitFromString)(text).pipe(
    Effect.mapError((error) => new ParamsValidation({ message: firstLine(error.message) }))
  )
