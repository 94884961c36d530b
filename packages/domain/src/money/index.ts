/**
 * Money: ISO 4217 currencies, wire values and units, exact decimal formatting and fiat → token conversion.
 * Amounts are integers (`bigint`) in minor units (fiat) or base units (tokens); no floats anywhere.
 *
 * @module
 */
export { convertFiatToToken, type FiatToTokenInput } from "./Conversion.ts"
export {
  CurrencyCode,
  type CurrencyInfo,
  currencyCodes,
  currencyExponent,
  currencyName,
  findCurrency,
  isCurrencyCode,
  isPayableCurrency,
  parseCurrencyCode
} from "./Currency.ts"
export { formatMinor, maxDecimalLength, parseDecimal } from "./Decimal.ts"
export { iso4217Source } from "./iso4217.generated.ts"
export {
  formatMinorValue,
  maxMinorValue,
  MinorValue,
  MinorValueBigInt,
  minorValuePattern,
  parseMinorValue,
  toMinorValue
} from "./MinorValue.ts"
export { Rate, rateFromDecimalString } from "./Rate.ts"
export {
  caip19AssetIdPattern,
  type FiatUnit,
  fiatUnitPrefix,
  formatUnit,
  parseUnit,
  type TokenUnit,
  tokenUnitPrefix,
  Unit,
  UnitFromString
} from "./Unit.ts"
