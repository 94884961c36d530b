/**
 * Subscriptions, their charges and their outbox events to and from rows (migration 0034). Token
 * amounts are `numeric(78,0)`, bound and selected as decimal text so that every bigint comes back
 * exact; the terms' `start` (Unix seconds) is stored in milliseconds like every `*_at` column.
 *
 * @module
 */
import { Subscription, SubscriptionCharge } from "@paygate/domain"
import { Schema } from "effect"
import { millisToSeconds, secondsToMillis, toInt, toIntOrNull } from "./Rows.ts"

// The JSON codecs read amounts from decimal text, as the columns are selected.
const decodeSubscription = Schema.decodeUnknownSync(Schema.toCodecJson(Subscription))
const decodeCharge = Schema.decodeUnknownSync(Schema.toCodecJson(SubscriptionCharge))
// The payload is the event's canonical JSON, as a settlement destination's event is stored.

/** The columns selected for a subscription. */
export const subscriptionSelect =
  "id, plan_id, partner_id, merchant_id, mode, payer, receiver, asset, amount_per_period::text AS amount_per_period, period_seconds, start_at, periods, salt, permit_signature, sig_deadline, subscribe_tx, status, ended_reason, cancelled_by, cancel_tx, closed_on_chain, replaced_by, end_period, skip_until, next_check_at, version, created_at, updated_at"

/** The columns selected for a charge. */
export const chargeSelect =
  "subscription_id, period_index, amount::text AS amount, status, failed_attempts, next_attempt_at, tx_hash, last_error, version, updated_at"

/** Decodes a `subscriptions` row selected with {@link subscriptionSelect}; an invalid row is a defect. */
export const subscriptionFromRow = (row: Record<string, unknown>): Subscription =>
  decodeSubscription({
    id: row.id,
    planId: row.plan_id,
    partnerId: row.partner_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    terms: {
      payer: row.payer,
      receiver: row.receiver,
      asset: row.asset,
      amountPerPeriod: row.amount_per_period,
      periodSeconds: toInt(row.period_seconds),
      start: millisToSeconds(row.start_at),
      periods: toIntOrNull(row.periods),
      salt: row.salt
    },
    permit: { signature: row.permit_signature, sigDeadline: toInt(row.sig_deadline) },
    subscribeTx: row.subscribe_tx,
    status: row.status,
    endedReason: row.ended_reason,
    cancelledBy: row.cancelled_by,
    cancelTx: row.cancel_tx,
    closedOnChain: row.closed_on_chain,
    replacedBy: row.replaced_by,
    endPeriod: toIntOrNull(row.end_period),
    skipUntil: toIntOrNull(row.skip_until),
    nextCheckAt: toInt(row.next_check_at),
    version: toInt(row.version),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

/** Decodes a `subscription_charges` row selected with {@link chargeSelect}; an invalid row is a defect. */
export const chargeFromRow = (row: Record<string, unknown>): SubscriptionCharge =>
  decodeCharge({
    subscriptionId: row.subscription_id,
    periodIndex: toInt(row.period_index),
    amount: row.amount,
    status: row.status,
    failedAttempts: toInt(row.failed_attempts),
    nextAttemptAt: toInt(row.next_attempt_at),
    txHash: row.tx_hash,
    lastError: row.last_error,
    version: toInt(row.version),
    updatedAt: toInt(row.updated_at)
  })

/** The terms' start, as `start_at` stores it. */
export const startAt = (subscription: Subscription): number => secondsToMillis(subscription.terms.start)

