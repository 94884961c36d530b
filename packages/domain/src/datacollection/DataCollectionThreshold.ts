import { splitDecimal } from "../money/Decimal.ts"

/**
 * The default data collection threshold (API rules §6): 1000.00 in the payment's currency. A
 * threshold is a plain decimal in the currency's major units, so one partner setting applies to
 * every currency (1000 USD, 1000 JPY, 1000 KWD).
 */
export const defaultDataCollectionThreshold = "1000.00"

/** Whether `text` is a threshold: a plain unsigned decimal such as `"250"` or `"1000.00"`. */
export const isDataCollectionThreshold = (text: string): boolean => splitDecimal(text) !== undefined

/**
 * Whether a payment of `value` minor units (currency exponent `exponent`) is at or above
 * `threshold`; exact, by scaling both sides to the same number of fraction digits. A malformed
 * threshold (never stored: see {@link isDataCollectionThreshold}) counts as the default.
 */
export const reachesThreshold = (value: bigint, exponent: number, threshold: string): boolean => {
  const parts = splitDecimal(threshold) ?? { integer: "1000", fraction: "" }
  const scaled = BigInt(parts.integer + parts.fraction)
  return value * 10n ** BigInt(parts.fraction.length) >= scaled * 10n ** BigInt(exponent)
}
