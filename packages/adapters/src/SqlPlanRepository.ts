/**
 * `PlanRepository` on SQL (`plans`, migration 0035). `value` is `numeric(78,0)`, bound and selected
 * as decimal text so that every bigint comes back exact. A plan of a merchant not stored is refused
 * by the foreign key, a defect: the use case checks the merchant first.
 *
 * @module
 */
import { Plan, type PlanId, type PlanQuery, PlanRepository, traced } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { toInt, toIntOrNull } from "./internal/Rows.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlPlanRepository.insert"),
  findById: traced("SqlPlanRepository.findById"),
  list: traced("SqlPlanRepository.list"),
  setActive: traced("SqlPlanRepository.setActive")
}

// The JSON codec reads `value` from decimal text, as the column is selected.
const decodePlan = Schema.decodeUnknownSync(Schema.toCodecJson(Plan))

const planSelect =
  "id, partner_id, merchant_id, mode, name, unit, value::text AS value, period_seconds, trial_seconds, periods, active, created_at, updated_at"

// An invalid row is a defect.
const planFromRow = (row: Record<string, unknown>): Plan =>
  decodePlan({
    id: row.id,
    partnerId: row.partner_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    name: row.name,
    unit: row.unit,
    value: row.value,
    periodSeconds: toInt(row.period_seconds),
    trialSeconds: toInt(row.trial_seconds),
    periods: toIntOrNull(row.periods),
    active: row.active,
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const selectPlan = sql.literal(planSelect)

  const insert = (p: Plan) =>
    sql`INSERT INTO plans (id, partner_id, merchant_id, mode, name, unit, value, period_seconds, trial_seconds, periods,
        active, created_at, updated_at)
      VALUES (${p.id}, ${p.partnerId}, ${p.merchantId}, ${p.mode}, ${p.name}, ${p.unit}, ${p.value.toString()}::numeric,
        ${p.periodSeconds}::bigint, ${p.trialSeconds}::bigint, ${p.periods}::integer, ${p.active}, ${p.createdAt}::bigint,
        ${p.updatedAt}::bigint)`.pipe(Effect.asVoid, Effect.orDie, spans.insert)

  const findById = (id: PlanId) =>
    sql`SELECT ${selectPlan} FROM plans WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), planFromRow)),
      Effect.orDie,
      spans.findById
    )

  const list = (query: PlanQuery) => {
    const where: Array<Fragment> = [sql`partner_id = ${query.partnerId}`, sql`mode = ${query.mode}`]
    if (query.merchantId !== undefined) where.push(sql`merchant_id = ${query.merchantId}`)
    if (query.after !== null) {
      where.push(sql`(created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`)
    }
    return sql`SELECT ${selectPlan} FROM plans WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(planFromRow)),
      Effect.orDie,
      spans.list
    )
  }

  const setActive = (id: PlanId, active: boolean, updatedAt: number) =>
    sql`UPDATE plans SET active = ${active}, updated_at = ${updatedAt}::bigint WHERE id = ${id} RETURNING ${selectPlan}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), planFromRow)),
      Effect.orDie,
      spans.setActive
    )

  return PlanRepository.of({ insert, findById, list, setActive })
})

/** `PlanRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<PlanRepository, never, SqlClient.SqlClient> = Layer.effect(PlanRepository, make)
