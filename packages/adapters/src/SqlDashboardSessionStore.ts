/**
 * `DashboardSessionStore` on SQL (`dashboard_sessions`, migration 0012). A session is found by the
 * SHA-256 of its token with its key, the key's partner and its member (if a member opened it) in one statement, never from the
 * credential cache: a key revoked anywhere (this process, another one, the operator CLI) ends its
 * sessions at their next request. `CredentialAdmin.revokeKey` also deletes them.
 *
 * @module
 */
import { type DashboardSession, DashboardSessionStore, traced } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"
import { keyWithPartnerColumns, keyWithPartnerFromRow } from "./internal/CredentialRows.ts"
import { memberColumns, memberFromRow } from "./internal/MemberRows.ts"

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const keySelect = sql.literal(keyWithPartnerColumns)
  const memberSelect = sql.literal(memberColumns)

  const create = (session: DashboardSession) =>
    Effect.gen(function*() {
      yield* sql`DELETE FROM dashboard_sessions WHERE expires_at <= ${session.createdAt}::bigint OR idle_expires_at <= ${session.createdAt}::bigint`
      yield* sql`INSERT INTO dashboard_sessions (token_sha256, key_id, member_id, created_at, idle_expires_at, expires_at)
        VALUES (${session.tokenSha256}, ${session.keyId}, ${session.memberId ?? null}, ${session.createdAt}::bigint, ${session.idleExpiresAt}::bigint, ${session.expiresAt}::bigint)`
    }).pipe(Effect.orDie, traced("SqlDashboardSessionStore.create"))

  const find = (tokenSha256: string, now: number) =>
    sql`SELECT s.token_sha256, s.key_id AS session_key_id, s.created_at, s.idle_expires_at, s.expires_at, s.member_id, ${keySelect}, ${memberSelect}
      FROM dashboard_sessions s JOIN api_keys k ON k.id = s.key_id LEFT JOIN partners p ON p.id = k.partner_id
        LEFT JOIN team_members m ON m.id = s.member_id
      WHERE s.token_sha256 = ${tokenSha256} AND s.expires_at > ${now}::bigint AND s.idle_expires_at > ${now}::bigint
        AND k.revoked_at IS NULL`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullishOr(rows[0]), (row) => {
          const credential = keyWithPartnerFromRow(row)
          return {
            session: {
              tokenSha256: String(row.token_sha256),
              keyId: credential.key.id,
              memberId: row.member_id === null ? undefined : String(row.member_id),
              createdAt: toInt(row.created_at),
              idleExpiresAt: toInt(row.idle_expires_at),
              expiresAt: toInt(row.expires_at)
            },
            credential,
            member: row.member_id === null ? undefined : memberFromRow(row)
          }
        })
      ),
      Effect.orDie,
      traced("SqlDashboardSessionStore.find")
    )

  const touch = (tokenSha256: string, idleExpiresAt: number) =>
    sql`UPDATE dashboard_sessions SET idle_expires_at = LEAST(${idleExpiresAt}::bigint, expires_at) WHERE token_sha256 = ${tokenSha256}`.pipe(
      Effect.asVoid,
      Effect.orDie
    )

  const remove = (tokenSha256: string) =>
    sql`DELETE FROM dashboard_sessions WHERE token_sha256 = ${tokenSha256}`.pipe(Effect.asVoid, Effect.orDie)

  return DashboardSessionStore.of({ create, find, touch, remove })
})

/** `DashboardSessionStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<DashboardSessionStore, never, SqlClient.SqlClient> = Layer.effect(DashboardSessionStore, make)
