import { Effect } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"

/**
 * Longest decimal text accepted. Amounts on the wire have at most 18 digits; this only guards
 * against feeding megabyte strings to `BigInt`, so it is generous.
 */
export const maxDecimalLength = 100

// Unsigned, no exponent, no spaces, no leading zeros, at least one digit on each side of a dot.
const decimalPattern = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/

/** The integer and fraction digits of a plain decimal string, or `undefined` if it is not one. */
export const splitDecimal = (text: string): { readonly integer: string; readonly fraction: string } | undefined => {
  if (text.length > maxDecimalLength) return undefined
  const match = decimalPattern.exec(text)
  if (match === null) return undefined
  return { integer: match[1] ?? "0", fraction: match[2] ?? "" }
}

/**
 * Throws a `RangeError` unless `exponent` is a non-negative safe integer. Exponents come from the
 * currency table or token metadata, never from users, so a bad one is a programming error (a defect).
 */
export const assertExponent = (name: string, exponent: number): void => {
  if (!Number.isSafeInteger(exponent) || exponent < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${exponent}`)
  }
}

/**
 * Formats an amount in minor (or base) units as a decimal string with exactly `exponent` fraction digits:
 * `formatMinor(12345n, 2) === "123.45"`, `formatMinor(5n, 2) === "0.05"`, `formatMinor(100n, 0) === "100"`.
 * Exact for any size. Throws a `RangeError` for a negative value or an invalid exponent.
 */
export const formatMinor = (value: bigint, exponent: number): string => {
  assertExponent("exponent", exponent)
  if (value < 0n) throw new RangeError(`amount must not be negative, got ${value}`)
  const digits = value.toString()
  if (exponent === 0) return digits
  const padded = digits.padStart(exponent + 1, "0")
  return `${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`
}

/**
 * Parses a decimal string into minor (or base) units: `parseDecimal("123.45", 2)` is `12345n`,
 * `parseDecimal("1.5", 2)` is `150n`, `parseDecimal("100", 0)` is `100n`.
 *
 * Accepts only unsigned plain decimals: no sign, exponent, spaces, thousands separators, leading zeros
 * (`"0.5"` is fine, `"00.5"` and `".5"` are not) and at most `exponent` fraction digits, so nothing is
 * ever rounded. `parseDecimal(formatMinor(v, e), e)` is `v`, and `formatMinor(parseDecimal(s, e), e)` is
 * `s` for every `s` written with exactly `e` fraction digits (the form {@link formatMinor} produces).
 * Fails with {@link ParamsValidation}; throws a `RangeError` for an invalid exponent.
 */
export const parseDecimal = (text: string, exponent: number): Effect.Effect<bigint, ParamsValidation> => {
  assertExponent("exponent", exponent)
  const parts = splitDecimal(text)
  if (parts === undefined) {
    return Effect.fail(
      new ParamsValidation({
        message: `amount must be a plain unsigned decimal such as "12.34" (no sign, exponent, spaces or leading zeros, at most ${maxDecimalLength} characters).`
      })
    )
  }
  if (parts.fraction.length > exponent) {
    return Effect.fail(
      new ParamsValidation({
        message:
          exponent === 0
            ? "amount must be a whole number: this currency has no minor units."
            : `amount must have at most ${exponent} decimal places.`
      })
    )
  }
  return Effect.succeed(BigInt(parts.integer + parts.fraction.padEnd(exponent, "0")))
}
