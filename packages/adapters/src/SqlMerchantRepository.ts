/**
 * `MerchantRepository` on SQL (`merchants`). The partial unique index `merchants_active_name`
 * on `(partner_id, mode, lower(name)) WHERE NOT deleted` enforces that an active merchant's name
 * is unique per partner and mode, case-insensitively; its violation is `MerchantExists`. Case
 * folding is the database's `lower()`, which follows its `LC_CTYPE` (`C.UTF-8` in PGlite and in
 * CI: Unicode-aware; a server initialised with plain `C` would fold ASCII only).
 * Other database failures, an insert of an existing id and an update of an unknown merchant
 * are defects. With a {@link CredentialCache} in context, `findById` answers `recent` reads from it
 * (the merchant API's), and every update drops the cached copy.
 *
 * @module
 */
import { Merchant, MerchantExists, type MerchantId, type MerchantQuery, type MerchantRead, MerchantRepository, type Mode, type PartnerId, traced } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CredentialCache, merchantKey } from "./CredentialCache.ts"
import type { Fragment } from "effect/sql/Statement"
import type { SqlError } from "effect/sql/SqlError"
import { toInt } from "./internal/Rows.ts"
import * as TtlCache from "./internal/TtlCache.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlMerchantRepository.insert"),
  update: traced("SqlMerchantRepository.update"),
  findById: traced("SqlMerchantRepository.findById"),
  list: traced("SqlMerchantRepository.list")
}

/** The unique index behind `MerchantExists`. */
export const activeNameIndex = "merchants_active_name"

const decodeMerchant = Schema.decodeUnknownSync(Merchant)

const merchantFromRow = (row: Record<string, unknown>): Merchant =>
  decodeMerchant({
    id: row.id,
    partnerId: row.partner_id,
    mode: row.mode,
    name: row.name,
    email: row.email,
    iconUrl: row.icon_url,
    deleted: row.deleted,
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

const exists = (merchant: Merchant) =>
  new MerchantExists({ message: `An active merchant named "${merchant.name}" already exists.` })

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cache = Option.getOrUndefined(yield* Effect.serviceOption(CredentialCache))?.merchants

  // Each write runs in its own transaction (a savepoint inside a caller's), so a unique violation
  // never leaves an enclosing transaction aborted.
  const write = <A>(merchant: Merchant, statement: Effect.Effect<A, SqlError>) =>
    statement.pipe(
      sql.withTransaction,
      Effect.catchIf((error) => isUniqueViolation(error, activeNameIndex), () => Effect.fail(exists(merchant))),
      Effect.catchTag("SqlError", Effect.die)
    )

  const insert = (m: Merchant) =>
    write(
      m,
      sql`INSERT INTO merchants (id, partner_id, mode, name, email, icon_url, deleted, created_at, updated_at)
        VALUES (${m.id}, ${m.partnerId}, ${m.mode}, ${m.name}, ${m.email}, ${m.iconUrl}, ${m.deleted}, ${m.createdAt}::bigint, ${m.updatedAt}::bigint)`
    ).pipe(Effect.asVoid, spans.insert)

  const update = (m: Merchant) =>
    write(
      m,
      sql`UPDATE merchants SET name = ${m.name}, email = ${m.email}, icon_url = ${m.iconUrl}, deleted = ${m.deleted},
          updated_at = ${m.updatedAt}::bigint
        WHERE id = ${m.id} AND partner_id = ${m.partnerId} AND mode = ${m.mode}
        RETURNING id`
    ).pipe(
      Effect.ensuring(Effect.sync(() => cache?.invalidate((key) => key === merchantKey(m.partnerId, m.mode, m.id)))),
      Effect.flatMap((rows) => rows.length === 1 ? Effect.void : Effect.die(new Error(`unknown merchant ${m.id}`))),
      spans.update
    )

  const read = (partnerId: PartnerId, mode: Mode, id: MerchantId) =>
    sql`SELECT * FROM merchants WHERE id = ${id} AND partner_id = ${partnerId} AND mode = ${mode}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), merchantFromRow)),
      Effect.orDie,
      spans.findById
    )

  const findById = (partnerId: PartnerId, mode: Mode, id: MerchantId, freshness: MerchantRead = "current") =>
    cache === undefined || freshness === "current"
      ? read(partnerId, mode, id)
      : TtlCache.through(cache, merchantKey(partnerId, mode, id), () => read(partnerId, mode, id))

  const list = (query: MerchantQuery) => {
    const where: Array<Fragment> = [sql`partner_id = ${query.partnerId}`, sql`mode = ${query.mode}`]
    if (query.status !== undefined) where.push(sql`deleted = ${query.status === "deleted"}`)
    if (query.search !== undefined) {
      where.push(sql`(id = ${query.search} OR strpos(lower(name), lower(${query.search}::text)) > 0)`)
    }
    if (query.after !== null) {
      where.push(sql`(created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`)
    }
    return sql`SELECT * FROM merchants WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(merchantFromRow)),
      Effect.orDie,
      spans.list
    )
  }

  return MerchantRepository.of({ insert, findById, list, update })
})

/** `MerchantRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<MerchantRepository, never, SqlClient.SqlClient> = Layer.effect(MerchantRepository, make)
