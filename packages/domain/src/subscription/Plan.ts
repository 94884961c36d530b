import { Schema } from "effect"
import { MerchantId, PartnerId, PlanId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"

/** The longest period, trial and term a plan may have: a year, and a hundred years of periods. */
export const planLimits = { maxPeriodDays: 366, maxTrialDays: 366, maxPeriods: 1200 } as const

/**
 * What a merchant charges its subscribers: `amount` base units of `asset` (a CAIP-19 token) every
 * `periodDays` days, from the end of a `trialDays` trial, for `periods` periods (`null`: until
 * cancelled). A period is a fixed number of days, as the subscription contract counts it: a
 * "monthly" plan of 30 days moves through the calendar.
 */
export class Plan extends Schema.Class<Plan>("paygate/Plan")({
  id: PlanId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  mode: Mode,
  name: Schema.String,
  asset: Schema.String,
  /** Token base units charged per period. */
  amount: Schema.BigInt,
  periodDays: Schema.Int,
  trialDays: Schema.Int,
  periods: Schema.NullOr(Schema.Int),
  /** Unix milliseconds. */
  createdAt: Schema.Int
}) {}

/** Why a plan's numbers cannot be a plan, in one line naming the field; `undefined` when they can. */
export const planProblem = (plan: Pick<Plan, "amount" | "periodDays" | "trialDays" | "periods">): string | undefined => {
  // The contract holds amounts in 160 bits and the whole term's allowance must fit too.
  const uint160 = 2n ** 160n - 1n
  if (plan.amount <= 0n || plan.amount > uint160) return "amount must be a positive number of the token's base units."
  if (!Number.isInteger(plan.periodDays) || plan.periodDays < 1 || plan.periodDays > planLimits.maxPeriodDays) {
    return `periodDays must be a whole number from 1 to ${planLimits.maxPeriodDays}.`
  }
  if (!Number.isInteger(plan.trialDays) || plan.trialDays < 0 || plan.trialDays > planLimits.maxTrialDays) {
    return `trialDays must be a whole number from 0 to ${planLimits.maxTrialDays}.`
  }
  if (plan.periods !== null) {
    if (!Number.isInteger(plan.periods) || plan.periods < 1 || plan.periods > planLimits.maxPeriods) {
      return `periods must be a whole number from 1 to ${planLimits.maxPeriods}, or null for a subscription until cancelled.`
    }
    if (plan.amount * BigInt(plan.periods) > uint160) return "amount times periods is more than a token allowance can hold."
  }
  return undefined
}
