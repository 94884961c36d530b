import { assertExponent } from "./Decimal.ts"
import type { Rate } from "./Rate.ts"

/** Inputs of {@link convertFiatToToken}. */
export interface FiatToTokenInput {
  /** The fiat amount in minor units, e.g. 1050n for 10.50 USD. Must not be negative. */
  readonly fiatMinor: bigint
  /** The fiat currency's ISO 4217 exponent, e.g. 2 for USD. */
  readonly fiatExponent: number
  /** Whole tokens per one whole fiat unit. */
  readonly rate: Rate
  /** The token's decimals, e.g. 6 for USDC, 18 for ETH. */
  readonly tokenDecimals: number
}

/** `ceil(numerator / denominator)` for a non-negative numerator and positive denominator. */
const divideRoundingUp = (numerator: bigint, denominator: bigint): bigint =>
  (numerator + denominator - 1n) / denominator

/**
 * Converts a fiat amount to token base units, exactly, rounding up whenever the result is not whole,
 * so the payer never pays less than the fiat price (in the merchant's favour, API rules §9).
 *
 * tokens = fiatMinor / 10^fiatExponent × numerator / denominator × 10^tokenDecimals, rounded up.
 * The result is the smallest integer `t` with `t × denominator × 10^fiatExponent ≥ fiatMinor × numerator × 10^tokenDecimals`.
 *
 * Pure bigint arithmetic, no floats. Throws a `RangeError` for a negative amount or an invalid exponent,
 * which are programming errors rather than bad input.
 */
export const convertFiatToToken = ({ fiatMinor, fiatExponent, rate, tokenDecimals }: FiatToTokenInput): bigint => {
  assertExponent("fiatExponent", fiatExponent)
  assertExponent("tokenDecimals", tokenDecimals)
  if (fiatMinor < 0n) throw new RangeError(`fiatMinor must not be negative, got ${fiatMinor}`)
  // Multiply everything first and divide once, so the only rounding is the final one.
  const numerator = fiatMinor * rate.numerator * 10n ** BigInt(tokenDecimals)
  const denominator = rate.denominator * 10n ** BigInt(fiatExponent)
  return divideRoundingUp(numerator, denominator)
}
