import { NonNegativeInt } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"

/** Suggested delay before the next status check, in milliseconds; `null` once the status is final. */
export const PollInMs = nullableKey(NonNegativeInt)
