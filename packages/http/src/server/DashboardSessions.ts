/**
 * Dashboard sessions: a partner secret key exchanged once (`POST /dashboard/session`) for an
 * HttpOnly, SameSite=Strict cookie, so the key never lives in the browser. The cookie's token is
 * 32 random bytes; only its SHA-256 is stored (`DashboardSessionStore`). The CSRF token is
 * derived from the session token (HMAC-SHA256 keyed by it): bound to the session, nothing more
 * stored, and only a holder of the cookie's token can have it.
 *
 * Sign-in and every change made with the cookie refuse requests a browser says come from another
 * origin (server/CrossSite.ts), beside the CSRF token. Attempts are limited per client (its address
 * behind the trusted proxies, an IPv6 client's /64: server/ClientAddress.ts) and for everyone at
 * once, counted in the database so every API process sees them; a successful sign-in gives its
 * attempt back. A live key signs in only over TLS (or from this machine, straight to the socket).
 * The cookie is `Secure` when PUBLIC_URL is https or the request came over TLS.
 *
 * A team member signs in with their email and password (server/TeamSignIn.ts): their session acts
 * through a key of their partner in their mode, limited by their role (server/Permissions.ts),
 * read on each request with the member, so a role change or a removal applies at once.
 *
 * A key's session acts exactly as its key: the partner API's authentication (server/AuthMiddleware.ts)
 * takes the cookie when no `Api-Key` is sent and goes on as the key would. It ends when unused for
 * `DASHBOARD_SESSION_IDLE_SECONDS`, `DASHBOARD_SESSION_MAX_SECONDS` after sign-in, on sign-out,
 * and when its key is revoked (read from the database on each request, never from a cache).
 *
 * @module
 */
import { type ApiKeyId, type DashboardSession, DashboardSessionStore, Forbidden, type Member, type Mode, type OpenDashboardSession, type Partner, SignInThrottleStore, TeamStore } from "@paygate/domain"
import { type ContractError } from "../api/ErrorCodes.ts"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { NetAddress } from "effect/net"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { MissingApiKey, Unauthorized } from "../api/HttpErrors.ts"
import { type Client, parseAddress, throttleKey } from "./ClientAddress.ts"
import { isCrossSite, originOf } from "./CrossSite.ts"
import { authenticatePartnerKey, keyLookup, partnerAuthentication, type PartnerAuthentication } from "./PartnerCredential.ts"
import { SessionSettings } from "../settings/SessionSettings.ts"

/** The session cookie's name. */
export const sessionCookie = "paygate_session"

/** The header a cookie-authenticated change must carry (its value: the session's CSRF token). */
export const csrfHeader = "csrf-token"

/** Lifetimes (milliseconds), whether every cookie is `Secure` (PUBLIC_URL is https), and PUBLIC_URL's origin. */
export interface DashboardSettings {
  readonly idleMillis: number
  readonly maxMillis: number
  readonly secureCookie: boolean
  readonly publicOrigin: string | undefined
}

/** Failed sign-ins allowed at once per client, and how fast that allowance comes back. */
export const signInThrottle = { burst: 10, perSecond: 0.2 } as const

/** Failed sign-ins allowed at once from all clients together, and how fast that allowance comes back (the settings' ceiling per minute). */
const ceilingOf = (perMinute: number) => ({ burst: perMinute, perSecond: perMinute / 60 })

/** The key of the allowance every client shares. */
const everyone = "*"

const crossSiteRefusal = () => new Forbidden({ message: "The dashboard session cannot be used or opened from another site." })

const sessionEnded = () => new Unauthorized({ message: "Your dashboard session has ended; sign in again." })

/** The CSRF token of a session: HMAC-SHA256 keyed by the session's token, base64url. */
export const csrfTokenOf = (token: string): string => createHmac("sha256", token).update("paygate dashboard csrf").digest("base64url")

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a, "utf8")
  const right = Buffer.from(b, "utf8")
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The `Set-Cookie` value that stores `token` for `maxSeconds`, or clears the cookie (no token). */
export const sessionCookieHeader = (settings: { readonly secureCookie: boolean }, token?: { readonly value: string; readonly maxSeconds: number }) =>
  [
    `${sessionCookie}=${token?.value ?? ""}`,
    "HttpOnly",
    "SameSite=Strict",
    "Path=/",
    `Max-Age=${token?.maxSeconds ?? 0}`,
    ...(settings.secureCookie ? ["Secure"] : [])
  ].join("; ")

/** What the session endpoints respond with about an open session. */
export interface SessionView {
  readonly partnerId: string
  readonly partnerName: string
  readonly keyId: string
  readonly mode: Mode
  readonly csrfToken: string
  /** Unix seconds: when the session ends unless used before (the earlier of its two expiries). */
  readonly expiresAt: number
  /** The team member signed in, or `null` for a key's session (the partner's full rights). */
  readonly member: { readonly memberId: string; readonly email: string; readonly role: Member["role"] } | null
}

const viewOf = (token: string, partner: Partner, open: { readonly session: DashboardSession; readonly member: Member | undefined }, mode: Mode): SessionView => ({
  partnerId: partner.id,
  partnerName: partner.name,
  keyId: open.session.keyId,
  mode,
  csrfToken: csrfTokenOf(token),
  expiresAt: Math.floor(Math.min(open.session.idleExpiresAt, open.session.expiresAt) / 1000),
  member: open.member === undefined ? null : { memberId: open.member.id, email: open.member.email, role: open.member.role }
})

/** Whether the session cookie of a request from `client` is `Secure`. */
export const secureCookieFor = (settings: DashboardSettings, client: Client) => ({ secureCookie: settings.secureCookie || client.overTls })

// Straight to the socket from this machine: no network to be read on.
const isLocal = (client: Client) => {
  const address = parseAddress(client.address)
  return !client.viaTrustedProxy && address !== undefined && NetAddress.isLoopback(address)
}

/** Dashboard sign-in, resumption and sign-out. */
export class DashboardSessions extends Context.Service<DashboardSessions, {
  readonly settings: DashboardSettings
  /**
   * What a sign-in is refused before its body is read: a request a browser says comes from
   * another origin (`forbidden`).
   */
  readonly admit: (headers: { readonly [name: string]: string | undefined }) => Effect.Effect<void, ContractError>
  /**
   * Takes an attempt: `undefined` when the client may try to sign in now, else the seconds until it
   * may (`Retry-After`). Each attempt takes one of {@link signInThrottle}'s allowance of its client
   * and one of the allowance all clients share; a successful sign-in gives it back.
   */
  readonly takeAttempt: (client: Client) => Effect.Effect<number | undefined>
  /**
   * Exchanges a partner secret key for a new session, with the partner API's checks and codes,
   * after the attempt was taken ({@link takeAttempt}); the caller gives it back on success ({@link giveBack}).
   */
  readonly signIn: (
    apiKey: string,
    environment: "production" | "staging"
  ) => Effect.Effect<{ readonly token: string; readonly view: SessionView }, ContractError>
  /**
   * Opens a session for a team member (their credentials already checked): through a key of
   * their partner in their mode; `unauthorized` when the partner has none.
   */
  readonly open: (member: Member, environment: "production" | "staging") => Effect.Effect<{ readonly token: string; readonly view: SessionView }, ContractError>
  /** Gives a client's sign-in attempt back (it signed in). */
  readonly giveBack: (client: Client) => Effect.Effect<void>
  /** What a sign-in is refused before any attempt is taken: no key (`missing_api_key`), a live key over plain HTTP (`forbidden`). */
  readonly checkKey: (apiKey: string | undefined, client: Client) => Effect.Effect<string, ContractError>
  /** The open session of a cookie's token (its idle expiry moved on), else `unauthorized`. */
  readonly resume: (
    token: string | undefined,
    environment: "production" | "staging"
  ) => Effect.Effect<{ readonly open: OpenDashboardSession; readonly view: SessionView }, ContractError>
  /**
   * The partner API's cookie authentication: the session's key, as the key would authenticate,
   * after the CSRF rules (a change must come from this origin and carry `Csrf-Token`).
   */
  readonly authenticate: (
    token: string,
    request: { readonly method: string; readonly csrfToken: string | undefined; readonly headers: { readonly [name: string]: string | undefined } },
    environment: "production" | "staging"
  ) => Effect.Effect<PartnerAuthentication & { readonly member: Member | undefined }, ContractError>
  /** Ends the session of a token (nothing when there is none). */
  readonly signOut: (token: string) => Effect.Effect<void>
}>()("@paygate/http/DashboardSessions") {
  /** From its `SessionSettings`, over the session and credential stores (tokens kept as their `SecretDigest`). */
  static readonly layer = Layer.effect(
    DashboardSessions,
    Effect.gen(function*() {
      const store = yield* DashboardSessionStore
      const team = yield* TeamStore
      const attempts = yield* SignInThrottleStore
      const keys = yield* keyLookup
      const { idleSeconds, maxSeconds, signInCeilingPerMinute, publicUrl } = yield* SessionSettings
      const ceiling = ceilingOf(signInCeilingPerMinute)
      const digestOf = keys.digest.digest
      const settings: DashboardSettings = {
        idleMillis: idleSeconds * 1000,
        maxMillis: maxSeconds * 1000,
        secureCookie: Option.exists(publicUrl, (url) => url.trim().toLowerCase().startsWith("https:")),
        publicOrigin: Option.getOrUndefined(Option.flatMapNullishOr(publicUrl, originOf))
      }
      // Each use moves the idle expiry on, written at most every minute (or tenth of the idle time).
      const touchEvery = Math.min(60_000, settings.idleMillis / 10)
      const allowancesOf = (client: Client) => [
        { key: throttleKey(client.address), ...signInThrottle },
        { key: everyone, ...ceiling }
      ]

      const admit = (headers: { readonly [name: string]: string | undefined }) =>
        isCrossSite(headers, settings.publicOrigin) ? Effect.fail(crossSiteRefusal()) : Effect.void

      const checkKey = (apiKey: string | undefined, client: Client) => {
        if (apiKey === undefined || apiKey.trim() === "") return Effect.fail(new MissingApiKey({ message: "An API key is required to sign in." }))
        // Refused before any lookup: the response says nothing about the key.
        if (apiKey.startsWith("sk_live_") && !client.overTls && !isLocal(client)) {
          return Effect.fail(new Forbidden({ message: "Live keys sign in over HTTPS only." }))
        }
        return Effect.succeed(apiKey)
      }

      const takeAttempt = (client: Client) => Effect.flatMap(Clock.currentTimeMillis, (now) => attempts.take(allowancesOf(client), now))

      const signIn = Effect.fnUntraced(function*(apiKey: string, environment: "production" | "staging") {
        const now = yield* Clock.currentTimeMillis
        const { auth, partner } = yield* authenticatePartnerKey(keys, apiKey, environment)
        const token = randomBytes(32).toString("base64url")
        // The key authentication just found (Authenticated carries ids as plain strings).
        const session = sessionOf(token, auth.keyId as ApiKeyId, undefined, now)
        yield* store.create(session)
        return { token, view: viewOf(token, partner, { session, member: undefined }, auth.mode) }
      })

      const sessionOf = (token: string, keyId: ApiKeyId, memberId: string | undefined, now: number): DashboardSession => ({
        tokenSha256: digestOf(token),
        keyId,
        memberId,
        createdAt: now,
        idleExpiresAt: now + Math.min(settings.idleMillis, settings.maxMillis),
        expiresAt: now + settings.maxMillis
      })

      const open = Effect.fnUntraced(function*(member: Member, environment: "production" | "staging") {
        const now = yield* Clock.currentTimeMillis
        const keyId = yield* team.keyFor(member.partnerId, member.mode)
        if (Option.isNone(keyId)) {
          return yield* new Unauthorized({ message: "Your team's partner has no active API key in this mode; ask an owner to create one." })
        }
        const token = randomBytes(32).toString("base64url")
        yield* store.create(sessionOf(token, keyId.value, member.id, now))
        return yield* resume(token, environment).pipe(Effect.map(({ view }) => ({ token, view })))
      })

      const giveBack = (client: Client) => attempts.giveBack(allowancesOf(client))

      const resumeOpen = Effect.fnUntraced(function*(token: string | undefined) {
        if (token === undefined || token === "") return yield* sessionEnded()
        const now = yield* Clock.currentTimeMillis
        const digest = digestOf(token)
        const found = yield* store.find(digest, now)
        if (Option.isNone(found)) return yield* sessionEnded()
        let open = found.value
        const idleExpiresAt = Math.min(now + settings.idleMillis, open.session.expiresAt)
        if (idleExpiresAt - open.session.idleExpiresAt >= touchEvery) {
          yield* store.touch(digest, idleExpiresAt)
          open = { ...open, session: { ...open.session, idleExpiresAt } }
        }
        return { open }
      })

      const resume = Effect.fnUntraced(function*(token: string | undefined, environment: "production" | "staging") {
        const { open } = yield* resumeOpen(token)
        const { auth, partner } = yield* partnerAuthentication(open.credential, environment)
        return { open, view: viewOf(token!, partner, open, auth.mode) }
      })

      const authenticate = Effect.fnUntraced(function*(
        token: string,
        request: { readonly method: string; readonly csrfToken: string | undefined; readonly headers: { readonly [name: string]: string | undefined } },
        environment: "production" | "staging"
      ) {
        const { open } = yield* resumeOpen(token)
        const safe = request.method === "GET" || request.method === "HEAD"
        if (!safe && isCrossSite(request.headers, settings.publicOrigin)) return yield* crossSiteRefusal()
        if (!safe && (request.csrfToken === undefined || !sameText(request.csrfToken, csrfTokenOf(token)))) {
          return yield* new Forbidden({ message: "Missing or wrong Csrf-Token header." })
        }
        return { ...(yield* partnerAuthentication(open.credential, environment)), member: open.member }
      })

      const signOut = (token: string) => store.remove(digestOf(token))

      return DashboardSessions.of({ settings, admit, checkKey, takeAttempt, signIn, open, giveBack, resume, authenticate, signOut })
    })
  )
}
