/**
 * `SubscriptionRepository` on SQL (`subscriptions`, `subscription_charges`, migrations 0034–0035). A
 * commit is one transaction: the subscription's compare-and-set on `version`, the charge's (or its
 * insert, refused when the period already has one) and the outbox events; when either
 * compare-and-set finds another writer came first, the transaction rolls back and the commit
 * answers `false`. The worker's queue is the subscriptions themselves, claimed like the
 * executor's payments (`SqlChainWork`): `FOR UPDATE SKIP LOCKED`, a lease, "now" from the `Clock`.
 * A release may put the next check later; it is the queue's, so the version stays.
 *
 * @module
 */
import {
  type Subscription,
  type SubscriptionCharge,
  type SubscriptionChange,
  type SubscriptionId,
  type SubscriptionQuery,
  SubscriptionRepository,
  traced
} from "@paygate/domain"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { eventsInsert } from "./internal/PaymentWrites.ts"
import {
  chargeFromRow,
  chargeSelect,
  startAt,
  subscriptionFromRow,
  subscriptionSelect
} from "./internal/SubscriptionRow.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlSubscriptionRepository.insert"),
  findById: traced("SqlSubscriptionRepository.findById"),
  list: traced("SqlSubscriptionRepository.list"),
  charges: traced("SqlSubscriptionRepository.charges"),
  commit: traced("SqlSubscriptionRepository.commit"),
  claim: traced("SqlSubscriptionRepository.claim"),
  release: traced("SqlSubscriptionRepository.release")
}

// Aborts (rolls back) a commit that another writer overtook.
class LostRace extends Schema.TaggedError<LostRace>()("LostRace", {}) {}

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const selectSubscription = sql.literal(subscriptionSelect)
  const selectCharge = sql.literal(chargeSelect)

  // A subscription with an id already stored is not written again.
  const insertRow = (s: Subscription) =>
    sql`INSERT INTO subscriptions (id, plan_id, partner_id, merchant_id, mode, payer, receiver, asset, amount_per_period,
        period_seconds, start_at, periods, salt, permit_signature, sig_deadline, subscribe_tx, status, ended_reason,
        cancelled_by, cancel_tx, closed_on_chain, replaced_by, end_period, skip_until, next_check_at, version, created_at, updated_at)
      VALUES (${s.id}, ${s.planId}, ${s.partnerId}, ${s.merchantId}, ${s.mode}, ${s.terms.payer}, ${s.terms.receiver},
        ${s.terms.asset}, ${s.terms.amountPerPeriod.toString()}::numeric, ${s.terms.periodSeconds}::bigint,
        ${startAt(s)}::bigint, ${s.terms.periods}::integer, ${s.terms.salt}, ${s.permit.signature},
        ${s.permit.sigDeadline}::bigint, ${s.subscribeTx}, ${s.status}, ${s.endedReason}, ${s.cancelledBy}, ${s.cancelTx},
        ${s.closedOnChain}, ${s.replacedBy}, ${s.endPeriod}::integer, ${s.skipUntil}::integer, ${s.nextCheckAt}::bigint, ${s.version}, ${s.createdAt}::bigint,
        ${s.updatedAt}::bigint)
      ON CONFLICT (id) DO NOTHING
      RETURNING id`.pipe(Effect.map((rows) => rows.length === 1))

  const insert = (s: Subscription) => insertRow(s).pipe(Effect.orDie, spans.insert)

  const findById = (id: SubscriptionId) =>
    sql`SELECT ${selectSubscription} FROM subscriptions WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), subscriptionFromRow)),
      Effect.orDie,
      spans.findById
    )

  const list = (query: SubscriptionQuery) => {
    const where: Array<Fragment> = [sql`partner_id = ${query.partnerId}`, sql`mode = ${query.mode}`]
    if (query.merchantId !== undefined) where.push(sql`merchant_id = ${query.merchantId}`)
    if (query.planId !== undefined) where.push(sql`plan_id = ${query.planId}`)
    if (query.after !== null) {
      where.push(sql`(created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`)
    }
    return sql`SELECT ${selectSubscription} FROM subscriptions WHERE ${sql.and(where)}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(subscriptionFromRow)),
      Effect.orDie,
      spans.list
    )
  }

  const charges = (id: SubscriptionId) =>
    sql`SELECT ${selectCharge} FROM subscription_charges WHERE subscription_id = ${id} ORDER BY period_index`.pipe(
      Effect.map((rows) => rows.map(chargeFromRow)),
      Effect.orDie,
      spans.charges
    )

  // The whole next version but its id; the lease is the queue's, not the subscription's.
  const updateSubscription = (s: Subscription) =>
    sql`UPDATE subscriptions SET plan_id = ${s.planId}, partner_id = ${s.partnerId}, merchant_id = ${s.merchantId},
        mode = ${s.mode}, payer = ${s.terms.payer}, receiver = ${s.terms.receiver}, asset = ${s.terms.asset},
        amount_per_period = ${s.terms.amountPerPeriod.toString()}::numeric, period_seconds = ${s.terms.periodSeconds}::bigint,
        start_at = ${startAt(s)}::bigint, periods = ${s.terms.periods}::integer, salt = ${s.terms.salt},
        permit_signature = ${s.permit.signature}, sig_deadline = ${s.permit.sigDeadline}::bigint,
        subscribe_tx = ${s.subscribeTx}, status = ${s.status}, ended_reason = ${s.endedReason},
        cancelled_by = ${s.cancelledBy}, cancel_tx = ${s.cancelTx}, closed_on_chain = ${s.closedOnChain},
        replaced_by = ${s.replacedBy}, end_period = ${s.endPeriod}::integer,
        skip_until = ${s.skipUntil}::integer, next_check_at = ${s.nextCheckAt}::bigint, version = ${s.version}, created_at = ${s.createdAt}::bigint,
        updated_at = ${s.updatedAt}::bigint
      WHERE id = ${s.id} AND version = ${s.version - 1}
      RETURNING id`

  // A new charge takes its period only if no charge holds it: a conflict is another writer's, not an error.
  const writeCharge = (c: SubscriptionCharge) =>
    c.version === 1
      ? sql`INSERT INTO subscription_charges (subscription_id, period_index, amount, status, failed_attempts,
            next_attempt_at, tx_hash, last_error, version, updated_at)
          VALUES (${c.subscriptionId}, ${c.periodIndex}, ${c.amount.toString()}::numeric, ${c.status}, ${c.failedAttempts},
            ${c.nextAttemptAt}::bigint, ${c.txHash}, ${c.lastError}, ${c.version}, ${c.updatedAt}::bigint)
          ON CONFLICT (subscription_id, period_index) DO NOTHING
          RETURNING period_index`
      : sql`UPDATE subscription_charges SET amount = ${c.amount.toString()}::numeric, status = ${c.status},
            failed_attempts = ${c.failedAttempts}, next_attempt_at = ${c.nextAttemptAt}::bigint, tx_hash = ${c.txHash},
            last_error = ${c.lastError}, version = ${c.version}, updated_at = ${c.updatedAt}::bigint
          WHERE subscription_id = ${c.subscriptionId} AND period_index = ${c.periodIndex} AND version = ${c.version - 1}
          RETURNING period_index`

  const commit = (change: SubscriptionChange) =>
    Effect.gen(function*() {
      // The replacement first: the replaced subscription names it.
      if (change.created !== undefined) yield* insertRow(change.created)
      if ((yield* updateSubscription(change.subscription)).length === 0) return yield* new LostRace()
      if (change.charge !== undefined && (yield* writeCharge(change.charge)).length === 0) return yield* new LostRace()
      const outbox = eventsInsert(sql, change.events ?? [])
      if (outbox !== undefined) yield* outbox
      return true
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("LostRace", () => Effect.succeed(false)),
      Effect.orDie,
      spans.commit
    )

  // The predicate repeats `subscriptions_due`'s, so the claim reads that index.
  const claim = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      if (limit <= 0) return []
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly id: SubscriptionId }>`UPDATE subscriptions SET lease_until = ${now + leaseMillis}::bigint
        WHERE id IN (
          SELECT id FROM subscriptions
          WHERE (status NOT IN ('cancelled', 'ended') OR NOT closed_on_chain) AND next_check_at <= ${now}::bigint
            AND (lease_until IS NULL OR lease_until <= ${now}::bigint)
          ORDER BY next_check_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id`
      return rows.map((row) => row.id)
    }).pipe(Effect.orDie, spans.claim)

  const release = (id: SubscriptionId, afterMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE subscriptions SET lease_until = NULL, next_check_at = GREATEST(next_check_at, ${now + afterMillis}::bigint)
        WHERE id = ${id}`
    }).pipe(Effect.orDie, spans.release)

  return SubscriptionRepository.of({ insert, findById, list, charges, commit, claim, release })
})

/** `SubscriptionRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<SubscriptionRepository, never, SqlClient.SqlClient> = Layer.effect(SubscriptionRepository, make)
