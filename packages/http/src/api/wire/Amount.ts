import { Schema } from "effect"
import { NonNegativeInt32 } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"

/** Display information of an amount (spec "AmountDisplay"); the icon and network fields are null for fiat. */
export const AmountDisplay = Schema.Struct({
  assetName: Schema.String,
  assetSymbol: Schema.String,
  decimals: NonNegativeInt32,
  iconUrl: nullableKey(Schema.String),
  networkIconUrl: nullableKey(Schema.String),
  networkName: nullableKey(Schema.String)
}).annotate({ identifier: "AmountDisplay" })

/** Decoded {@link AmountDisplay}. */
export type AmountDisplay = typeof AmountDisplay.Type

/**
 * An amount on the wire (spec "Amount"): `unit` (`iso4217/…` or `caip19/…`), `value` (minor or
 * base units as a decimal string) and `display`. Structural only: unit and value rules are checked elsewhere.
 */
export const Amount = Schema.Struct({
  unit: Schema.String,
  value: Schema.String,
  display: AmountDisplay
}).annotate({ identifier: "Amount" })

/** Decoded {@link Amount}. */
export type Amount = typeof Amount.Type
