// @ts-check
/**
 * Amounts typed in the dashboard's forms ("12.50") as the API counts them: whole minor units of a
 * currency, or base units of a token.
 *
 * @module
 */

/**
 * A decimal in major units ("12.50") as minor units, or null when it is not one with at most
 * `decimals` decimals.
 *
 * @param {string} text
 * @param {number} decimals
 * @returns {bigint | null}
 */
export function minorUnits(text, decimals) {
  const match = /^([0-9]{1,18})(?:[.,]([0-9]*))?$/.exec(text.trim())
  if (match === null) return null
  const fraction = match[2] ?? ""
  if (fraction.length > decimals) return null
  return BigInt(`${match[1]}${fraction.padEnd(decimals, "0")}`)
}

/**
 * What a create form sends for a typed amount: its minor units, or the text as typed when it is
 * not an amount (the API then says what is wrong with it, in its words).
 *
 * @param {string} text
 * @param {number} decimals
 */
export function unitsOrText(text, decimals) {
  return minorUnits(text, decimals)?.toString() ?? text.trim()
}

/**
 * The decimals of currency `code` (2 when it is not a currency code: the API names the problem).
 *
 * @param {string} code
 */
export function currencyDecimals(code) {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}
