import { Schema } from "effect"
import { SubscriptionId } from "../ids/Ids.ts"

/**
 * A period's charge: `pending` (due, sent or retried), then `succeeded` or `failed` for good, or
 * `skipped` (the period began while the subscription was paused: nothing is asked of the payer).
 */
export const ChargeStatus = Schema.Literals(["pending", "succeeded", "failed", "skipped"])
/** A charge status. */
export type ChargeStatus = typeof ChargeStatus.Type

/**
 * The charge of one period of a subscription (`periodIndex` from 0): the period's amount, moved by
 * the contract from the payer to the receiver. At most one charge per period ever succeeds: the
 * contract caps each period, so a transaction sent twice (a crash between sending and recording)
 * pays once. Changes are compare-and-set on `version`.
 */
export class SubscriptionCharge extends Schema.Class<SubscriptionCharge>("paygate/SubscriptionCharge")({
  subscriptionId: SubscriptionId,
  periodIndex: Schema.Int,
  amount: Schema.BigInt,
  status: ChargeStatus,
  /** Attempts that failed (the payer short of funds); the next is due at `nextAttemptAt`. */
  failedAttempts: Schema.Int,
  /** Unix milliseconds. */
  nextAttemptAt: Schema.Int,
  /** The transaction sent for the current attempt; `null` before sending, or when the contract showed the period charged without ours. */
  txHash: Schema.NullOr(Schema.String),
  /** Why the last attempt failed, in one line. */
  lastError: Schema.NullOr(Schema.String),
  version: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}

/** Period `periodIndex`'s charge as first stored (version 1): the period's amount, due at `dueAt` (Unix milliseconds). */
export const firstCharge = (
  subscription: { readonly id: SubscriptionId; readonly terms: { readonly amountPerPeriod: bigint } },
  periodIndex: number,
  dueAt: number
): SubscriptionCharge =>
  new SubscriptionCharge({
    subscriptionId: subscription.id,
    periodIndex,
    amount: subscription.terms.amountPerPeriod,
    status: "pending",
    failedAttempts: 0,
    nextAttemptAt: dueAt,
    txHash: null,
    lastError: null,
    version: 1,
    updatedAt: dueAt
  })
