import { Effect, Option, Schema } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { type Iso4217Code, iso4217 } from "./iso4217.generated.ts"

const isKnownCode = (code: string): code is Iso4217Code => Object.hasOwn(iso4217, code)

/**
 * An ISO 4217 alphabetic currency code that exists in the generated table, e.g. `"USD"`.
 * Three uppercase letters only: `"usd"` is rejected rather than normalised, as the contract is case-sensitive.
 */
export const CurrencyCode = Schema.String.pipe(
  Schema.check(
    // One filter with two messages, so a lowercase code reports the case problem only.
    Schema.makeFilter((code: string) =>
      !/^[A-Z]{3}$/.test(code)
        ? 'currency code must be 3 uppercase letters (ISO 4217), e.g. "USD".'
        : isKnownCode(code) || `"${code}" is not an ISO 4217 currency code.`
    )
  ),
  Schema.brand("CurrencyCode")
)

/** An ISO 4217 alphabetic currency code known to the table. */
export type CurrencyCode = typeof CurrencyCode.Type

/** Everything the table knows about one currency. */
export interface CurrencyInfo {
  /** The alphabetic code, e.g. `"USD"`. */
  readonly code: CurrencyCode
  /** Number of minor-unit digits: USD 2, JPY 0, KWD 3. */
  readonly exponent: number
  /** English name as published by ISO. */
  readonly name: string
  /** Three-digit numeric code, zero-padded, e.g. `"840"`. */
  readonly numeric: string
  /** False for ISO's non-currencies (funds, metals, XTS, XXX): they parse but cannot be charged. */
  readonly payable: boolean
}

/** Every known currency code, in alphabetical order. */
export const currencyCodes: ReadonlyArray<CurrencyCode> = Object.freeze(Object.keys(iso4217) as Array<CurrencyCode>)

/** Whether a string is a known, correctly cased ISO 4217 code. */
export const isCurrencyCode: (u: unknown) => u is CurrencyCode = Schema.is(CurrencyCode)

/** Validates a currency code from input, failing with {@link ParamsValidation} when it is malformed or unknown. */
export const parseCurrencyCode = (text: string): Effect.Effect<CurrencyCode, ParamsValidation> =>
  Schema.decodeUnknownEffect(CurrencyCode)(text).pipe(
    Effect.mapError((error) => new ParamsValidation({ message: error.message }))
  )

/** Looks up any string; `Option.none()` for codes that are not in the table (lookup is case-sensitive). */
export const findCurrency = (code: string): Option.Option<CurrencyInfo> =>
  isKnownCode(code) ? Option.some({ code: code as string as CurrencyCode, ...iso4217[code] }) : Option.none()

// The brand guarantees table membership, so these lookups are total.
const entryOf = (code: CurrencyCode) => iso4217[code as string as Iso4217Code]

/** The number of minor-unit digits of a currency: USD 2, JPY 0, KWD 3, CLF 4. */
export const currencyExponent = (code: CurrencyCode): number => entryOf(code).exponent

/** Whether buyers can be charged in the currency: false for ISO's funds, metals, XTS and XXX. */
export const isPayableCurrency = (code: CurrencyCode): boolean => entryOf(code).payable

/** The English name of a currency, e.g. `"US Dollar"`. */
export const currencyName = (code: CurrencyCode): string => entryOf(code).name
