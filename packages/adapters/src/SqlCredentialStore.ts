/**
 * `CredentialStore` on SQL (`api_keys`, `apps`, `partners`). Keys are found by the SHA-256 of
 * their secret (`api_keys.secret_sha256`, unique); the secret itself is never stored. A key and
 * its partner are read in one statement. When the host provides a {@link CredentialCache}, keys
 * and apps found are kept there for its TTL.
 *
 * @module
 */
import { type AppId, CredentialStore, type PartnerId, traced } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { CredentialCache } from "./CredentialCache.ts"
import { decodeApp, keyWithPartnerColumns, keyWithPartnerFromRow, partnerColumns, partnerFromRow } from "./internal/CredentialRows.ts"
import * as TtlCache from "./internal/TtlCache.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  findKeyWithPartner: traced("SqlCredentialStore.findKeyWithPartner"),
  findApp: traced("SqlCredentialStore.findApp"),
  findPartner: traced("SqlCredentialStore.findPartner")
}

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const cache = Option.getOrUndefined(yield* Effect.serviceOption(CredentialCache))
  const partnerSelect = sql.literal(partnerColumns)
  const keySelect = sql.literal(keyWithPartnerColumns)

  const readKeyWithPartner = (sha256Hex: string) =>
    sql`SELECT ${keySelect}
      FROM api_keys k LEFT JOIN partners p ON p.id = k.partner_id
      WHERE k.secret_sha256 = ${sha256Hex}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), keyWithPartnerFromRow)),
      Effect.orDie,
      spans.findKeyWithPartner
    )

  const findKeyWithPartner = (sha256Hex: string) => {
    const digest = sha256Hex.toLowerCase()
    return TtlCache.through(cache?.keys, digest, () => readKeyWithPartner(digest))
  }

  const findKeyByHash = (sha256Hex: string) => Effect.map(findKeyWithPartner(sha256Hex), Option.map(({ key }) => key))

  const readApp = (id: AppId) =>
    // A revoked app (`npm run admin -- app revoke`) is no longer found.
    sql`SELECT id, mode, name FROM apps WHERE id = ${id} AND revoked_at IS NULL`
      .pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), decodeApp)),
        Effect.orDie,
        spans.findApp
      )

  const findApp = (id: AppId) => TtlCache.through(cache?.apps, id, () => readApp(id))

  const findPartner = (id: PartnerId) =>
    sql`SELECT ${partnerSelect} FROM partners p WHERE p.id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), partnerFromRow)),
      Effect.orDie,
      spans.findPartner
    )

  return CredentialStore.of({ findKeyByHash, findKeyWithPartner, findApp, findPartner })
})

/** `CredentialStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<CredentialStore, never, SqlClient.SqlClient> = Layer.effect(CredentialStore, make)
