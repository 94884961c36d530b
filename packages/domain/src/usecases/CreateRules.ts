import { Effect } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { type CurrencyCode, currencyExponent, isPayableCurrency } from "../money/Currency.ts"
import { maxMinorValue, parseMinorValue } from "../money/MinorValue.ts"
import { parseUnit } from "../money/Unit.ts"
import type { Mode } from "../payment/Payment.ts"

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
 * given or both URLs are accepted; else which URL is missing or not accepted (service-spec:
 * redirecting is then disabled and the checkout shows its own result views).
 */
export const checkoutWarning = (
  mode: Mode,
  checkout: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
): string | undefined => {
  if (checkout === undefined || validateCheckout(mode, checkout) !== null) return undefined
  const accepted = mode === "sandbox" ? "an HTTPS or local URL" : "an HTTPS URL"
  const problems = (["successUrl", "errorUrl"] as const)
    .filter((field) => !isRedirectUrl(mode, checkout[field]))
    .map((field) => `checkout.${field} ${checkout[field] === undefined ? "is missing" : `is not ${accepted}`}`)
  const rule = mode === "sandbox"
    ? "both URLs must be HTTPS, or http://localhost or http://127.0.0.1 in the sandbox, to redirect"
    : "both URLs must be HTTPS to redirect"
  return `Redirect disabled for this payment: ${problems.join(" and ")}; the checkout shows its own result pages (${rule}).`
}

/** `referenceId` is 1–255 characters (API rules §11). */
export const validateReferenceId = (referenceId: string): Effect.Effect<string, ParamsValidation> =>
  referenceId.length >= 1 && referenceId.length <= 255
    ? Effect.succeed(referenceId)
    : Effect.fail(new ParamsValidation({ message: "referenceId must be 1 to 255 characters long." }))

// A developer's own machine: sandbox payments may return there over plain HTTP, as test modes of
// payment services allow; a live buyer is only ever sent to HTTPS.
const localHosts = new Set(["localhost", "127.0.0.1"])

const isRedirectUrl = (mode: Mode, text: string | undefined): text is string => {
  if (text === undefined || !URL.canParse(text)) return false
  const url = new URL(text)
  if (url.protocol === "https:") return url.hostname !== ""
  return mode === "sandbox" && url.protocol === "http:" && localHosts.has(url.hostname)
}

/**
 * The redirect targets, or `null` when either URL is missing or not accepted for the payment's
 * mode (HTTPS; in the sandbox also http://localhost and http://127.0.0.1, any port and path): then
 * redirecting is disabled entirely and the portal shows generic terminal views (service-spec).
 */
export const validateCheckout = (
  mode: Mode,
  checkout: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
): { readonly successUrl: string; readonly errorUrl: string } | null =>
  checkout !== undefined && isRedirectUrl(mode, checkout.successUrl) && isRedirectUrl(mode, checkout.errorUrl)
    ? { successUrl: checkout.successUrl, errorUrl: checkout.errorUrl }
    : null
