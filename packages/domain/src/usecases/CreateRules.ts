import { Effect } from "effect"
import { ParamsValidation } from "../errors/ApiErrors.ts"
import { type CurrencyCode, currencyExponent, isPayableCurrency } from "../money/Currency.ts"
import { maxMinorValue, parseMinorValue } from "../money/MinorValue.ts"
import { parseUnit } from "../money/Unit.ts"

/** Validates a create request's amount: an ISO 4217 unit and a minor-unit value (API rules §9). */
export const validateFiatAmount = Effect.fnUntraced(function*(amount: { readonly unit: string; readonly value: string }) {
  const unit = yield* parseUnit(amount.unit)
  if (unit._tag !== "Fiat") {
    return yield* new ParamsValidation({ message: "amount.unit must be a fiat currency (iso4217/<CODE>)." })
  }
  if (!isPayableCurrency(unit.currency)) {
    return yield* new ParamsValidation({ message: `${unit.currency} is not a currency payments can be made in.` })
  }
  const decimal = /^(\d+)\.(\d+)$/.exec(amount.value.trim())
  const hint = decimal === null ? undefined : minorUnitsHint(unit.currency, decimal[1]!, decimal[2]!)
  if (hint !== undefined) return yield* new ParamsValidation({ message: hint })
  const value = yield* parseMinorValue(amount.value)
  return { currency: unit.currency as string, value: value as bigint }
})

// A value written in major units ("10.50"): say that values are minor units, with the right one
// (none when that value would be refused too: zero or too large, which the value's own rule says).
const minorUnitsHint = (currency: CurrencyCode, whole: string, fraction: string): string | undefined => {
  const exponent = currencyExponent(currency)
  const unitName = exponent === 0 ? "whole units (it has no minor unit)" : `minor units (1/${10 ** exponent} of a ${currency})`
  if (fraction.length > exponent && /[1-9]/.test(fraction.slice(exponent))) {
    return `amount.value is an integer in ${unitName}; ${whole}.${fraction} ${currency} has more decimals than ${currency} has (${exponent}).`
  }
  const minor = BigInt(whole + fraction.slice(0, exponent).padEnd(exponent, "0"))
  if (minor < 1n || minor > maxMinorValue) return undefined
  return `amount.value is an integer in ${currency} ${unitName}, not a decimal: ${whole}.${fraction} ${currency} is "${minor}".`
}

/**
 * Why a create's redirect was turned off, for the merchant to see: none when no `checkout` was
 * given or both URLs are HTTPS; else which URL is missing or not HTTPS (service-spec: redirecting
 * is then disabled and the checkout shows its own result views).
 */
export const checkoutWarning = (
  checkout: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
): string | undefined => {
  if (checkout === undefined || validateCheckout(checkout) !== null) return undefined
  const problems = (["successUrl", "errorUrl"] as const)
    .filter((field) => !isHttpsUrl(checkout[field]))
    .map((field) => `checkout.${field} ${checkout[field] === undefined ? "is missing" : "is not an HTTPS URL"}`)
  return `Redirect disabled for this payment: ${problems.join(" and ")}; the checkout shows its own result pages (both URLs must be HTTPS to redirect).`
}

/** `referenceId` is 1–255 characters (API rules §11). */
export const validateReferenceId = (referenceId: string): Effect.Effect<string, ParamsValidation> =>
  referenceId.length >= 1 && referenceId.length <= 255
    ? Effect.succeed(referenceId)
    : Effect.fail(new ParamsValidation({ message: "referenceId must be 1 to 255 characters long." }))

const isHttpsUrl = (text: string | undefined): text is string => {
  if (text === undefined || !URL.canParse(text)) return false
  const url = new URL(text)
  return url.protocol === "https:" && url.hostname !== ""
}

/**
 * The redirect targets, or `null` when either URL is missing or not a valid HTTPS URL: then
 * redirecting is disabled entirely and the portal shows generic terminal views (service-spec).
 */
export const validateCheckout = (
  checkout: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
): { readonly successUrl: string; readonly errorUrl: string } | null =>
  checkout !== undefined && isHttpsUrl(checkout.successUrl) && isHttpsUrl(checkout.errorUrl)
    ? { successUrl: checkout.successUrl, errorUrl: checkout.errorUrl }
    : null
