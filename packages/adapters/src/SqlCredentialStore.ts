/**
 * `CredentialStore` on SQL (`api_keys`, `apps`, `partners`). Keys are found by the SHA-256 of
 * their secret (`api_keys.secret_sha256`, unique); the secret itself is never stored.
 *
 * @module
 */
import { ApiKeyId, type ApiKeyRecord, AppId, type AppRecord, CredentialStore, Mode, Partner, PartnerId } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"

const decodePartner = Schema.decodeUnknownSync(Partner)

const decodeKey: (input: unknown) => ApiKeyRecord = Schema.decodeUnknownSync(Schema.Struct({
  id: ApiKeyId,
  kind: Schema.Literals(["partner", "wallet"]),
  mode: Mode,
  partnerId: Schema.NullOr(PartnerId),
  appId: Schema.NullOr(AppId),
  revoked: Schema.Boolean,
  secretSha256: Schema.String
}))

const decodeApp: (input: unknown) => AppRecord = Schema.decodeUnknownSync(Schema.Struct({ id: AppId, mode: Mode, name: Schema.String }))

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const findKeyByHash = (sha256Hex: string) =>
    sql`SELECT id, kind, mode, partner_id, app_id, revoked_at, secret_sha256 FROM api_keys WHERE secret_sha256 = ${sha256Hex.toLowerCase()}`
      .pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullishOr(rows[0]), (row) =>
            decodeKey({
              id: row.id,
              kind: row.kind,
              mode: row.mode,
              partnerId: row.partner_id,
              appId: row.app_id,
              revoked: row.revoked_at !== null,
              secretSha256: row.secret_sha256
            }))
        ),
        Effect.orDie,
        Effect.withSpan("SqlCredentialStore.findKeyByHash")
      )

  const findApp = (id: AppId) =>
    sql`SELECT id, mode, name FROM apps WHERE id = ${id}`
      .pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), decodeApp)),
        Effect.orDie,
        Effect.withSpan("SqlCredentialStore.findApp")
      )

  const findPartner = (id: PartnerId) =>
    sql`SELECT id, name, pinned_version, created_at FROM partners WHERE id = ${id}`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullishOr(rows[0]), (row) =>
          decodePartner({ id: row.id, name: row.name, pinnedVersion: row.pinned_version, createdAt: toInt(row.created_at) }))
      ),
      Effect.orDie,
      Effect.withSpan("SqlCredentialStore.findPartner")
    )

  return CredentialStore.of({ findKeyByHash, findApp, findPartner })
})

/** `CredentialStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<CredentialStore, never, SqlClient.SqlClient> = Layer.effect(CredentialStore, make)
