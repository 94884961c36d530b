import { Schema } from "effect"
import { convertFiatToToken } from "../money/Conversion.ts"
import { type CurrencyCode, currencyExponent } from "../money/Currency.ts"
import { Rate } from "../money/Rate.ts"
import type { Payment } from "../payment/Payment.ts"

/**
 * How a token is priced in the payment currency: a stablecoin pegged to that very currency
 * (no rate, so its quote never goes stale) or a market rate in whole tokens per whole fiat unit.
 */
export type Pricing =
  | { readonly _tag: "Peg" }
  | { readonly _tag: "Rate"; readonly rate: Rate }

/** What a quote is computed from. */
export interface QuoteInput {
  /** Payment amount in the fiat currency's minor units. */
  readonly fiatMinor: bigint
  /** The fiat currency's ISO 4217 exponent. */
  readonly fiatExponent: number
  /** The token's decimals. */
  readonly tokenDecimals: number
  readonly pricing: Pricing
  /** Unix seconds. */
  readonly nowSeconds: number
  /** How long a rate-based quote lives (API rules §4: 300 s by default). */
  readonly ttlSeconds: number
}

/** A priced option: the token amount to pay and until when that price holds. */
export class Quote extends Schema.Class<Quote>("paygate/Quote")({
  /** Token base units, rounded up in the merchant's favour. */
  tokenAmount: Schema.BigInt,
  /** Unix seconds; `null` for pegged options, which involve no rate. */
  expiresAt: Schema.NullOr(Schema.Int)
}) {}

/** Prices a payment in a token (pure: the caller supplies the time and the rate). */
export const quote = (input: QuoteInput): Quote =>
  new Quote({
    tokenAmount: convertFiatToToken({
      fiatMinor: input.fiatMinor,
      fiatExponent: input.fiatExponent,
      rate: input.pricing._tag === "Peg" ? Rate.one : input.pricing.rate,
      tokenDecimals: input.tokenDecimals
    }),
    expiresAt: input.pricing._tag === "Peg" ? null : input.nowSeconds + input.ttlSeconds
  })

/** Prices `payment` in a token of `decimals` (the one rule options, checkout estimates and x402 share). */
export const quotePayment = (
  payment: Pick<Payment, "value" | "currency">,
  decimals: number,
  pricing: Pricing,
  nowSeconds: number,
  ttlSeconds: number
): Quote =>
  quote({
    fiatMinor: payment.value,
    fiatExponent: currencyExponent(payment.currency as CurrencyCode),
    tokenDecimals: decimals,
    pricing,
    nowSeconds,
    ttlSeconds
  })
