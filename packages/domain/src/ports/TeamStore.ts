import { Context, type Effect, type Option } from "effect"
import type { ApiKeyId, PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"
import type { Role } from "../team/Role.ts"

/** A member of a partner's team. Times are Unix milliseconds. */
export interface Member {
  readonly id: string
  readonly partnerId: PartnerId
  /** The mode the member works in (that of who invited them). */
  readonly mode: Mode
  readonly email: string
  readonly role: Role
  readonly createdAt: number
}

/** A pending invitation: only the SHA-256 of its one-time token is kept. */
export interface Invitation {
  readonly id: string
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly email: string
  readonly role: Role
  readonly tokenSha256: string
  /** Who invited (an audit actor). */
  readonly invitedBy: string
  readonly createdAt: number
  readonly expiresAt: number
}

/** One line of the audit log: who (`key:…` or `member:…`) did what, to what, when. */
export interface AuditEntry {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly actor: string
  readonly action: string
  readonly subject: string
  readonly at: number
}

/** What a change to a member found. */
export type MemberChange = "changed" | "not_found" | "last_owner"

/** Team persistence: members, invitations, the audit log. Infrastructure failures are defects. */
export class TeamStore extends Context.Service<TeamStore, {
  readonly invite: (invitation: Invitation) => Effect.Effect<void>
  /**
   * Uses an invitation once: when its token is unused and unexpired at `now` and its email is no
   * member yet, marks it used and creates the member with `passwordHash`, in one transaction.
   */
  readonly accept: (tokenSha256: string, member: { readonly id: string; readonly passwordHash: string }, now: number) => Effect.Effect<Option.Option<Member>>
  /** The member with this email (any partner) and its password hash. */
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<{ readonly member: Member; readonly passwordHash: string }>>
  readonly list: (partnerId: PartnerId, mode: Mode) => Effect.Effect<ReadonlyArray<Member>>
  /** Changes a member's role; never leaves the team without an owner. */
  readonly changeRole: (partnerId: PartnerId, mode: Mode, memberId: string, role: Role) => Effect.Effect<MemberChange>
  /** Removes a member (and ends their sessions); never the last owner. */
  readonly remove: (partnerId: PartnerId, mode: Mode, memberId: string) => Effect.Effect<MemberChange>
  /** An unrevoked partner key of the partner in that mode: what a member's session acts through. */
  readonly keyFor: (partnerId: PartnerId, mode: Mode) => Effect.Effect<Option.Option<ApiKeyId>>
  readonly record: (entry: AuditEntry) => Effect.Effect<void>
  /** The newest entries first, at most `limit`. */
  readonly audit: (partnerId: PartnerId, mode: Mode, limit: number) => Effect.Effect<ReadonlyArray<AuditEntry>>
}>()("@paygate/domain/TeamStore") {}
