import { Effect, Option, Schema, SchemaGetter } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"

/** The largest amount the contract allows: 10^18 - 1 minor or base units (18 digits). */
export const maxMinorValue: bigint = 10n ** 18n - 1n

/** The wire pattern of a `value` (API rules §9): 1 to 18 digits, no leading zero, so never zero. */
export const minorValuePattern: RegExp = /^[1-9][0-9]{0,17}$/

const rangeMessage = "value must be a positive integer of at most 18 digits (1 to 999999999999999999)"

/** A positive amount in integer minor (fiat) or base (token) units, at most {@link maxMinorValue}. */
export const MinorValueBigInt = Schema.BigInt.pipe(
  Schema.check(Schema.isBetweenBigInt({ minimum: 1n, maximum: maxMinorValue }, { message: `${rangeMessage}.` })),
  Schema.brand("MinorValue")
)

/** A positive amount in integer minor (fiat) or base (token) units, at most {@link maxMinorValue}. */
export type MinorValue = typeof MinorValueBigInt.Type

/**
 * The wire `value`: a decimal string such as `"12345"` decoding to a branded `bigint`, and encoding back
 * to the same string. Strings only, so amounts never pass through a float.
 */
export const MinorValue = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(minorValuePattern, {
      message: `${rangeMessage}, written as digits only: no sign, decimal point, spaces or leading zeros.`
    })
  ),
  Schema.decodeTo(MinorValueBigInt, {
    decode: SchemaGetter.transform((text: string) => BigInt(text)),
    encode: SchemaGetter.transform((value: bigint) => value.toString())
  })
)

/** Decodes a wire `value`, failing with {@link ParamsValidation} when it does not match the contract. */
export const parseMinorValue = (text: string): Effect.Effect<MinorValue, ParamsValidation> =>
  Schema.decodeUnknownEffect(MinorValue)(text).pipe(
    Effect.mapError((error) => new ParamsValidation({ message: error.message }))
  )

/** The wire form of a value: its decimal digits. */
export const formatMinorValue = (value: MinorValue): string => value.toString()

/** Brands a computed amount (e.g. a conversion result) if it is within 1..{@link maxMinorValue}. */
export const toMinorValue = (value: bigint): Option.Option<MinorValue> =>
  Schema.decodeUnknownOption(MinorValueBigInt)(value)
