/**
 * `PaymentVolume` on SQL: every total is one aggregate over the partner's payments of the mode
 * (index `payments_listing`), so the dashboard's figures cover all payments, not a listed page.
 * Token amounts come from the recorded commitment; settlements from the `payouts` table (what is
 * held is the ledger's: `LedgerBalances`).
 *
 * @module
 */
import { PaymentVolume, traced, type VolumeQuery } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"

const span = traced("SqlPaymentVolume.summarize")

const dayMs = 86_400_000

/** A UTC day number (days since 1970-01-01) as `YYYY-MM-DD`. */
const dayOf = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10)

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const summarize = ({ mode, partnerId, since }: VolumeQuery) =>
    Effect.gen(function*() {
      const mine = sql`p.partner_id = ${partnerId} AND p.mode = ${mode}`
      const [currencies, assets, days, settled] = yield* Effect.all([
        // A held payment counts what was captured of it (the rest went back to the buyer).
        sql`SELECT p.currency, count(*) AS count,
            sum(CASE WHEN p.hold IS NULL THEN p.value ELSE (p.hold ->> 'capturedValue')::numeric END)::text AS value
          FROM payments p WHERE ${mine} AND p.status = 'succeeded' GROUP BY p.currency ORDER BY p.currency`,
        sql`SELECT p.commitment ->> 'asset' AS asset, count(*) AS count,
            sum(CASE WHEN p.hold IS NULL THEN (p.commitment ->> 'tokenAmount')::numeric ELSE (p.hold ->> 'captured')::numeric END)::text AS value
          FROM payments p WHERE ${mine} AND p.status = 'succeeded' AND p.commitment IS NOT NULL
          GROUP BY 1 ORDER BY 1`,
        sql`SELECT p.created_at / ${dayMs} AS day, count(*) AS created, count(*) FILTER (WHERE p.status = 'succeeded') AS succeeded
          FROM payments p WHERE ${mine} AND p.created_at >= ${since} GROUP BY 1 ORDER BY 1`,
        sql`SELECT o.asset, o.recipient,
            coalesce(sum(o.value) FILTER (WHERE o.status = 'completed'), 0)::text AS completed,
            coalesce(sum(o.value) FILTER (WHERE o.status = 'pending'), 0)::text AS pending
          FROM payouts o JOIN payments p ON p.id = o.payment_id
          WHERE ${mine} AND o.kind = 'settlement' AND o.status <> 'failed'
          GROUP BY 1, 2 ORDER BY 1, 2`
      ], { concurrency: 1 })
      return {
        currencies: currencies.map((row) => ({ currency: String(row.currency), count: toInt(row.count), value: BigInt(String(row.value)) })),
        assets: assets.map((row) => ({ asset: String(row.asset), count: toInt(row.count), value: BigInt(String(row.value)) })),
        days: days.map((row) => ({ day: dayOf(toInt(row.day)), created: toInt(row.created), succeeded: toInt(row.succeeded) })),
        settled: settled.map((row) => ({
          asset: String(row.asset),
          destination: String(row.recipient),
          completed: BigInt(String(row.completed)),
          pending: BigInt(String(row.pending))
        }))
      }
    }).pipe(Effect.orDie, span)

  return PaymentVolume.of({ summarize })
})

/** The store over the `SqlClient` in context. */
export const layer: Layer.Layer<PaymentVolume, never, SqlClient.SqlClient> = Layer.effect(PaymentVolume, make)
