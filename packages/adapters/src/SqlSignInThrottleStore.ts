/**
 * `SignInThrottleStore` on SQL (`sign_in_attempts`, migration 0017). An attempt locks its buckets
 * (in key order, so two attempts never wait on each other crosswise), refills them by the time
 * passed and takes one from each only when every one has one: concurrent attempts, in this process
 * or another, never take more than the buckets hold. Buckets full again are deleted as attempts
 * come, so addresses seen once do not pile up.
 *
 * @module
 */
import { type AttemptAllowance, SignInThrottleStore, traced } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"

// When a bucket holding `tokens` at `at` is full again.
const fullAt = (allowance: AttemptAllowance, tokens: number, at: number) =>
  Math.ceil(at + (Math.max(0, allowance.burst - tokens) / allowance.perSecond) * 1000)

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Rows another attempt holds are skipped: waiting on them in no set order could deadlock with it.
  const forgetFull = (now: number) =>
    sql`DELETE FROM sign_in_attempts WHERE client IN (
      SELECT client FROM sign_in_attempts WHERE full_at < ${now}::bigint FOR UPDATE SKIP LOCKED)`

  const take = (allowances: ReadonlyArray<AttemptAllowance>, now: number) =>
    forgetFull(now).pipe(Effect.andThen(sql.withTransaction(Effect.gen(function*() {
      const buckets: Array<{ readonly allowance: AttemptAllowance; readonly tokens: number; readonly at: number }> = []
      for (const allowance of [...allowances].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
        yield* sql`INSERT INTO sign_in_attempts (client, tokens, updated_at, full_at)
          VALUES (${allowance.key}, ${allowance.burst}, ${now}::bigint, ${now}::bigint) ON CONFLICT (client) DO NOTHING`
        const [row] = yield* sql`SELECT tokens, updated_at FROM sign_in_attempts WHERE client = ${allowance.key} FOR UPDATE`
        const stored = Number(row!.tokens)
        const at = Math.max(toInt(row!.updated_at), now)
        const tokens = Math.min(allowance.burst, stored + (Math.max(0, now - toInt(row!.updated_at)) / 1000) * allowance.perSecond)
        buckets.push({ allowance, tokens, at })
      }
      const short = buckets.filter((bucket) => bucket.tokens < 1)
      if (short.length > 0) {
        return Math.max(...short.map(({ allowance, tokens }) => Math.max(1, Math.ceil((1 - tokens) / allowance.perSecond))))
      }
      for (const { allowance, tokens, at } of buckets) {
        yield* sql`UPDATE sign_in_attempts SET tokens = ${tokens - 1}, updated_at = ${at}::bigint,
          full_at = ${fullAt(allowance, tokens - 1, at)}::bigint WHERE client = ${allowance.key}`
      }
      return undefined
    })))).pipe(Effect.orDie, traced("SqlSignInThrottleStore.take"))

  const giveBack = (allowances: ReadonlyArray<AttemptAllowance>) =>
    Effect.forEach(allowances, (allowance) =>
      sql`UPDATE sign_in_attempts SET tokens = LEAST(${allowance.burst}::double precision, tokens + 1) WHERE client = ${allowance.key}`, { discard: true }).pipe(
        Effect.orDie,
        traced("SqlSignInThrottleStore.giveBack")
      )

  return SignInThrottleStore.of({ take, giveBack })
})

/** `SignInThrottleStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<SignInThrottleStore, never, SqlClient.SqlClient> = Layer.effect(SignInThrottleStore, make)
