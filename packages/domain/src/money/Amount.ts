import { type CurrencyCode, currencyExponent, currencyName } from "./Currency.ts"
import { fiatUnitPrefix } from "./Unit.ts"

/** How to show an amount (spec "AmountDisplay"); the icon and network fields are null for fiat. */
export interface AmountDisplay {
  readonly assetName: string
  readonly assetSymbol: string
  readonly decimals: number
  readonly iconUrl: string | null
  readonly networkIconUrl: string | null
  readonly networkName: string | null
}

/**
 * An amount as partners and buyers see it (spec "Amount"): `unit` (`iso4217/…` or `caip19/…`),
 * `value` (minor or base units, as a decimal string) and how to show it.
 */
export interface Amount {
  readonly unit: string
  readonly value: string
  readonly display: AmountDisplay
}

/** The fiat {@link Amount} of `value` minor units of `currency`, with display data from the ISO 4217 table. */
export const fiatAmount = (currency: string, value: bigint): Amount => {
  const code = currency as CurrencyCode
  return {
    unit: `${fiatUnitPrefix}${currency}`,
    value: value.toString(),
    display: {
      assetName: currencyName(code),
      assetSymbol: currency,
      decimals: currencyExponent(code),
      iconUrl: null,
      networkIconUrl: null,
      networkName: null
    }
  }
}
