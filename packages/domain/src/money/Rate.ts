import { Effect, Schema } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { maxDecimalLength, splitDecimal } from "./Decimal.ts"

const PositiveBigInt = Schema.BigInt.pipe(Schema.check(Schema.isGreaterThanBigInt(0n)))

/**
 * An exchange rate as an exact fraction: `numerator / denominator` whole tokens per one whole fiat unit.
 * E.g. ETH at 3200 USD is `1 / 3200`. Both parts are positive; the constructor throws otherwise.
 * A fraction rather than a decimal so that rates like 1/3 stay exact until the single final rounding.
 */
export class Rate extends Schema.Class<Rate>("paygate/money/Rate")({
  numerator: PositiveBigInt,
  denominator: PositiveBigInt
}) {
  /** One token per fiat unit: a stablecoin pegged to its currency, e.g. USDC for USD. */
  static readonly one: Rate = new Rate({ numerator: 1n, denominator: 1n })
}

/**
 * Reads a rate written as a plain positive decimal, e.g. `"0.000312"` becomes `312 / 1000000`.
 * Exact: every fraction digit is kept. Fails with {@link ParamsValidation} for zero or anything that is
 * not a plain unsigned decimal (no sign, exponent, spaces or leading zeros).
 */
export const rateFromDecimalString = (text: string): Effect.Effect<Rate, ParamsValidation> => {
  const parts = splitDecimal(text)
  if (parts === undefined) {
    return Effect.fail(
      new ParamsValidation({
        message: `rate must be a plain positive decimal such as "0.000312" (no sign, exponent, spaces or leading zeros, at most ${maxDecimalLength} characters).`
      })
    )
  }
  const numerator = BigInt(parts.integer + parts.fraction)
  if (numerator === 0n) return Effect.fail(new ParamsValidation({ message: "rate must be greater than zero." }))
  return Effect.succeed(new Rate({ numerator, denominator: 10n ** BigInt(parts.fraction.length) }))
}
