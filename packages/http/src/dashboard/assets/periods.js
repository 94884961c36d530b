// @ts-check
/**
 * A subscription's period in words a merchant reads: "$10.00 / month", "5.00 TUSDC every 2 weeks",
 * "12 payments (12 months)". A plan counts seconds, not calendar months: a whole number of days reads
 * as years (365 days), months (30 days), weeks or days, as the plans' form counts them; a shorter
 * period (test mode allows seconds) in hours, minutes or seconds.
 *
 * @module
 */

const day = 86_400

/** The units a period is counted in, longest first, with their length in seconds. */
export const periodUnits = /** @type {const} */ ([
  ["year", 365 * day],
  ["month", 30 * day],
  ["week", 7 * day],
  ["day", day],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1]
])

/**
 * The longest unit that counts `seconds` whole, and how many of it.
 *
 * @param {number} seconds
 */
function counted(seconds) {
  const [unit, length] = periodUnits.find(([, length]) => seconds % length === 0) ?? ["second", 1]
  return { unit, count: seconds / length }
}

/**
 * `seconds` as "1 month", "2 weeks", "45 days", "90 seconds".
 *
 * @param {number} seconds
 */
export function durationWords(seconds) {
  const { unit, count } = counted(seconds)
  return `${count.toLocaleString("en-US")} ${unit}${count === 1 ? "" : "s"}`
}

/**
 * An amount per period: "$10.00 / month", or "$10.00 every 2 weeks".
 *
 * @param {string} amount as shown
 * @param {number} periodSeconds
 */
export function perPeriod(amount, periodSeconds) {
  const { unit, count } = counted(periodSeconds)
  return count === 1 ? `${amount} / ${unit}` : `${amount} every ${durationWords(periodSeconds)}`
}

/**
 * A term: "Until cancelled", or "12 payments (12 months)".
 *
 * @param {number | null} periods
 * @param {number} periodSeconds
 */
export function termWords(periods, periodSeconds) {
  if (periods === null) return "Until cancelled"
  return periods === 1 ? "1 payment" : `${periods} payments (${durationWords(periods * periodSeconds)})`
}
