// @ts-check
/**
 * Amounts, durations and addresses for display. Amounts stay decimal strings (no binary floats):
 * `Intl.NumberFormat` formats decimal strings exactly.
 *
 * @module
 */

/** @typedef {{ assetName: string, assetSymbol: string, decimals: number, iconUrl?: string | null, networkIconUrl?: string | null, networkName?: string | null }} AmountDisplay */
/** @typedef {{ unit: string, value: string, display: AmountDisplay }} Amount */

/**
 * `value` minor units with `decimals` decimals, as a decimal string ("1250", 2 → "12.50").
 *
 * @param {string} value
 * @param {number} decimals
 * @returns {string}
 */
export function toDecimal(value, decimals) {
  const digits = /^[0-9]+$/.test(value) ? value.replace(/^0+(?=.)/, "") : "0"
  if (decimals <= 0) return digits
  const padded = digits.padStart(decimals + 1, "0")
  return `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`
}

/**
 * An amount for people: fiat in its currency's format ("$12.50"), tokens with their symbol
 * ("12.50 TUSDC", at least two decimals, trailing zeros dropped beyond).
 *
 * @param {Amount} amount
 * @returns {string}
 */
export function formatAmount(amount) {
  const { decimals, assetSymbol } = amount.display
  const decimal = toDecimal(amount.value, decimals)
  const numeric = /** @type {`${number}`} */ (decimal)
  const fiat = /^iso4217\/([A-Z]{3})$/.exec(amount.unit)
  try {
    if (fiat !== null) {
      const currency = fiat[1] ?? ""
      return new Intl.NumberFormat(undefined, {
        style: "currency",
        currency,
        minimumFractionDigits: decimals,
        maximumFractionDigits: decimals
      }).format(numeric)
    }
    const minimum = Math.min(2, decimals)
    const formatted = new Intl.NumberFormat(undefined, {
      minimumFractionDigits: minimum,
      maximumFractionDigits: Math.max(minimum, Math.min(decimals, 100))
    }).format(numeric)
    return `${formatted} ${assetSymbol}`
  } catch {
    return `${decimal} ${assetSymbol}`
  }
}

/**
 * Seconds as "m:ss" or "h:mm:ss".
 *
 * @param {number} seconds
 * @returns {string}
 */
export function formatDuration(seconds) {
  const total = Math.max(0, Math.floor(seconds))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, "0")
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`
}

// Whole days read as days, weeks, months (30 days) or years (365 days); shorter or uneven spans as hours, minutes or seconds.
const dayUnits = /** @type {const} */ ([[365 * 86_400, "year"], [30 * 86_400, "month"], [7 * 86_400, "week"], [86_400, "day"]])
const clockUnits = /** @type {const} */ ([[3600, "hour"], [60, "minute"], [1, "second"]])

/**
 * A span of time in words, in the largest unit it is a whole number of: 2592000 → "1 month",
 * 1209600 → "2 weeks", 90 → "90 seconds".
 *
 * @param {number} seconds
 * @returns {{ count: number, unit: string, text: string }}
 */
export function formatSpan(seconds) {
  const whole = Math.max(1, Math.floor(seconds))
  const units = whole % 86_400 === 0 ? dayUnits : clockUnits
  const [size, unit] = units.find(([size]) => whole % size === 0) ?? [1, "second"]
  const count = whole / size
  return { count, unit, text: `${count} ${unit}${count === 1 ? "" : "s"}` }
}

/**
 * How often a period recurs: "every month", "every 2 weeks", "every 8 seconds".
 *
 * @param {number} seconds
 */
export function formatEvery(seconds) {
  const span = formatSpan(seconds)
  return span.count === 1 ? `every ${span.unit}` : `every ${span.text}`
}

// Made once, when the page loads: a formatter with a time zone name costs the browser time to build.
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", timeZoneName: "short" })
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short"
})

/**
 * A time on the service's clock (Unix seconds; `now` is the service's now) as the buyer's clock
 * time with its time zone ("3:15 PM UTC").
 *
 * @param {number} seconds
 * @param {number} now
 * @returns {string}
 */
export function formatClock(seconds, now) {
  return clockFormat.format(new Date(Date.now() + (seconds - now) * 1000))
}

/**
 * Like {@link formatClock}, with the date ("Nov 29, 2026, 3:15 PM UTC").
 *
 * @param {number} seconds
 * @param {number} now
 * @returns {string}
 */
export function formatDateTime(seconds, now) {
  return dateTimeFormat.format(new Date(Date.now() + (seconds - now) * 1000))
}

/**
 * A shortened address ("0x7099…79C8").
 *
 * @param {string} address
 * @returns {string}
 */
export function shortAddress(address) {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address
}
