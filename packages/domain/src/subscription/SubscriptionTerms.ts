import { Schema } from "effect"

/**
 * What the buyer signs for, as the subscription contract holds it: at most `amountPerPeriod` base
 * units of `asset` per period of `periodSeconds`, from `start` (Unix seconds), for `periods`
 * periods (`null`: until cancelled), from `payer` to `receiver` (CAIP-10 accounts on the asset's
 * chain). `salt` (0x + 32 bytes) makes two subscriptions with equal terms distinct. The buyer's one
 * signature fixes every field: changing any needs a new signature.
 */
export class SubscriptionTerms extends Schema.Class<SubscriptionTerms>("paygate/SubscriptionTerms")({
  payer: Schema.String,
  receiver: Schema.String,
  asset: Schema.String,
  amountPerPeriod: Schema.BigInt,
  periodSeconds: Schema.Int,
  start: Schema.Int,
  periods: Schema.NullOr(Schema.Int),
  salt: Schema.String
}) {}

/** When period `index` begins (Unix seconds). */
export const periodStart = (terms: SubscriptionTerms, index: number): number => terms.start + index * terms.periodSeconds

/** When the term ends (Unix seconds), or `null` for a subscription until cancelled. */
export const termEnd = (terms: SubscriptionTerms): number | null =>
  terms.periods === null ? null : periodStart(terms, terms.periods)

/**
 * The last moment period `index` can be charged: the contract takes a period while it runs and
 * during the next one (a worker that was down catches up one period), and nothing after the term.
 */
export const chargeDeadline = (terms: SubscriptionTerms, index: number): number => {
  const arrears = periodStart(terms, index + 2)
  const end = termEnd(terms)
  return end === null ? arrears : Math.min(arrears, end)
}
