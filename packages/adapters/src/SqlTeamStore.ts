/**
 * `TeamStore` on SQL (migration 0024): members, one-time invitations (only their token's SHA-256)
 * and the audit log. Role changes and removals lock the partner's members first, so two owners
 * demoting each other at once cannot leave the team without an owner.
 *
 * @module
 */
import { type ApiKeyId, type AuditEntry, type Invitation, type MemberChange, type Mode, type PartnerId, type Role, TeamStore, traced } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { memberColumns, memberFromRow } from "./internal/MemberRows.ts"
import { toInt } from "./internal/Rows.ts"

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(memberColumns)

  const invite = (invitation: Invitation) =>
    sql`INSERT INTO team_invitations (id, partner_id, mode, email, role, token_sha256, invited_by, created_at, expires_at)
      VALUES (${invitation.id}, ${invitation.partnerId}, ${invitation.mode}, ${invitation.email}, ${invitation.role}, ${invitation.tokenSha256},
        ${invitation.invitedBy}, ${invitation.createdAt}::bigint, ${invitation.expiresAt}::bigint)`.pipe(
      Effect.asVoid,
      Effect.orDie,
      traced("SqlTeamStore.invite")
    )

  const accept = (tokenSha256: string, member: { readonly id: string; readonly passwordHash: string }, now: number) =>
    sql.withTransaction(Effect.gen(function*() {
      const used = yield* sql`UPDATE team_invitations i SET accepted_at = ${now}::bigint
        WHERE token_sha256 = ${tokenSha256} AND accepted_at IS NULL AND expires_at > ${now}::bigint
          AND NOT EXISTS (SELECT 1 FROM team_members m WHERE m.email = i.email)
        RETURNING partner_id, mode, email, role`
      const invitation = used[0]
      if (invitation === undefined) return Option.none()
      const rows = yield* sql`INSERT INTO team_members AS m (id, partner_id, mode, email, role, password_hash, created_at)
        VALUES (${member.id}, ${invitation.partner_id as string}, ${invitation.mode as string}, ${invitation.email as string},
          ${invitation.role as string}, ${member.passwordHash}, ${now}::bigint)
        RETURNING ${columns}`
      return Option.some(memberFromRow(rows[0]!))
    })).pipe(Effect.orDie, traced("SqlTeamStore.accept"))

  const findByEmail = (email: string) =>
    sql`SELECT ${columns}, m.password_hash FROM team_members m WHERE m.email = ${email}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => ({ member: memberFromRow(row), passwordHash: String(row.password_hash) }))),
      Effect.orDie
    )

  const list = (partnerId: PartnerId, mode: Mode) =>
    sql`SELECT ${columns} FROM team_members m WHERE m.partner_id = ${partnerId} AND m.mode = ${mode} ORDER BY m.created_at, m.id`.pipe(
      Effect.map((rows) => rows.map(memberFromRow)),
      Effect.orDie
    )

  // Locks the partner's members, then answers whether `memberId` is one of them and whether the
  // change would leave no owner.
  const guarded = (partnerId: PartnerId, mode: Mode, memberId: string, keepsOwner: (role: Role) => boolean, change: Effect.Effect<unknown, unknown>) =>
    sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql`SELECT id, role FROM team_members WHERE partner_id = ${partnerId} AND mode = ${mode} ORDER BY id FOR UPDATE`
      const target = rows.find((row) => row.id === memberId)
      if (target === undefined) return "not_found" as MemberChange
      const owners = rows.filter((row) => row.role === "owner").length
      if (target.role === "owner" && owners === 1 && !keepsOwner(target.role as Role)) return "last_owner" as MemberChange
      yield* change
      return "changed" as MemberChange
    })).pipe(Effect.orDie)

  const changeRole = (partnerId: PartnerId, mode: Mode, memberId: string, role: Role) =>
    guarded(partnerId, mode, memberId, () => role === "owner", sql`UPDATE team_members SET role = ${role} WHERE id = ${memberId}`)

  const remove = (partnerId: PartnerId, mode: Mode, memberId: string) =>
    guarded(partnerId, mode, memberId, () => false, sql`DELETE FROM team_members WHERE id = ${memberId}`)

  const keyFor = (partnerId: PartnerId, mode: Mode) =>
    sql`SELECT id FROM api_keys WHERE partner_id = ${partnerId} AND mode = ${mode} AND kind = 'partner' AND revoked_at IS NULL
      ORDER BY created_at, id LIMIT 1`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => row.id as ApiKeyId)),
      Effect.orDie
    )

  const record = (entry: AuditEntry) =>
    sql`INSERT INTO audit_log (partner_id, mode, actor, action, subject, at)
      VALUES (${entry.partnerId}, ${entry.mode}, ${entry.actor}, ${entry.action}, ${entry.subject}, ${entry.at}::bigint)`.pipe(
      Effect.asVoid,
      Effect.orDie
    )

  const audit = (partnerId: PartnerId, mode: Mode, limit: number) =>
    sql`SELECT actor, action, subject, at FROM audit_log WHERE partner_id = ${partnerId} AND mode = ${mode} ORDER BY seq DESC LIMIT ${limit}`.pipe(
      Effect.map((rows) =>
        rows.map((row): AuditEntry => ({ partnerId, mode, actor: String(row.actor), action: String(row.action), subject: String(row.subject), at: toInt(row.at) }))
      ),
      Effect.orDie
    )

  return TeamStore.of({ invite, accept, findByEmail, list, changeRole, remove, keyFor, record, audit })
})

/** `TeamStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<TeamStore, never, SqlClient.SqlClient> = Layer.effect(TeamStore, make)
