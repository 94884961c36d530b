import { Context, type Effect, type Option } from "effect"
import type { ApiKeyId } from "../ids/Ids.ts"
import type { KeyWithPartner } from "./CredentialStore.ts"
import type { Member } from "./TeamStore.ts"

/**
 * A dashboard session: a partner key exchanged once for a cookie. Only the SHA-256 of the
 * cookie's token is kept. Times are Unix milliseconds.
 */
export interface DashboardSession {
  readonly tokenSha256: string
  /** The key the session acts as. */
  readonly keyId: ApiKeyId
  /** The team member signed in, when a member (not a key) opened the session: their role limits it. */
  readonly memberId?: string | undefined
  readonly createdAt: number
  /** Ends when unused until then; each use moves it on. */
  readonly idleExpiresAt: number
  /** Ends then however much it is used. */
  readonly expiresAt: number
}

/** A session that is still open, with the key (and its partner) it acts as, as `CredentialStore` reads them. */
export interface OpenDashboardSession {
  readonly session: DashboardSession
  readonly credential: KeyWithPartner
  /** The member signed in (with their current role), if any. */
  readonly member: Member | undefined
}

/** Dashboard session persistence. Infrastructure failures are defects. */
export class DashboardSessionStore extends Context.Service<DashboardSessionStore, {
  /** Stores a new session (and drops sessions that ended before `session.createdAt`). */
  readonly create: (session: DashboardSession) => Effect.Effect<void>
  /**
   * The session whose token hashes to `tokenSha256` if it is open at `now`: neither expiry is
   * past and its key is not revoked (read from the database each time, never from a cache).
   */
  readonly find: (tokenSha256: string, now: number) => Effect.Effect<Option.Option<OpenDashboardSession>>
  /** Moves a session's idle expiry on (never past its absolute expiry). */
  readonly touch: (tokenSha256: string, idleExpiresAt: number) => Effect.Effect<void>
  /** Ends a session. */
  readonly remove: (tokenSha256: string) => Effect.Effect<void>
}>()("@paygate/domain/DashboardSessionStore") {}
