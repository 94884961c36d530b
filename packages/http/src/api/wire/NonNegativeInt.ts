import { Schema } from "effect"

/** A JSON integer `>= 0` within the safe-integer range (the spec's int64 fields, e.g. `expiresAt`). */
export const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A JSON integer `>= 0` that fits in an int32 (e.g. `AmountDisplay.decimals`). */
export const NonNegativeInt32 = Schema.Int.check(Schema.isInt32(), Schema.isGreaterThanOrEqualTo(0))
