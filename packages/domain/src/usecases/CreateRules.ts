import { Effect } from "effect"
import { ParamsValidation } from "../errors/ApiErrors.ts"
import { isPayableCurrency } from "../money/Currency.ts"
import { parseMinorValue } from "../money/MinorValue.ts"
import { parseUnit } from "../money/Unit.ts"

/** Validates a create request's amount: an ISO 4217 unit and a minor-unit value (contract §7). */
export const validateFiatAmount = Effect.fnUntraced(function*(amount: { readonly unit: string; readonly value: string }) {
  const unit = yield* parseUnit(amount.unit)
  if (unit._tag !== "Fiat") {
    return yield* new ParamsValidation({ message: "amount.unit must be a fiat currency (iso4217/<CODE>)." })
  }
  if (!isPayableCurrency(unit.currency)) {
    return yield* new ParamsValidation({ message: `${unit.currency} is not a currency payments can be made in.` })
  }
  const value = yield* parseMinorValue(amount.value)
  return { currency: unit.currency as string, value: value as bigint }
})

/** `referenceId` is 1–255 characters (contract §8). */
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
