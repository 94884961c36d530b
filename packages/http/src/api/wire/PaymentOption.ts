import { Schema } from "effect"
import { Action } from "./Action.ts"
import { Amount } from "./Amount.ts"
import { CollectData } from "./CollectData.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"

/** Longest option id accepted on the wire (API rules §7). */
export const maxOptionIdLength = 65_536

/** An option id: an opaque string of at most {@link maxOptionIdLength} characters. */
export const OptionId = Schema.String.check(Schema.isMaxLength(maxOptionIdLength))

/** One way to pay (spec "PaymentOption"). `expiresAt` is null for options that involve no rate. */
export const PaymentOption = Schema.Struct({
  id: OptionId,
  account: Schema.String,
  amount: Amount,
  etaS: NonNegativeInt,
  actions: Schema.Array(Action),
  collectData: nullableKey(CollectData),
  expiresAt: nullableKey(NonNegativeInt)
}).annotate({ identifier: "PaymentOption" })

/** Decoded {@link PaymentOption}. */
export type PaymentOption = typeof PaymentOption.Type
