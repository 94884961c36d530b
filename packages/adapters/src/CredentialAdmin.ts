/**
 * Credential administration for the operator CLI and the first-start bootstrap: partners, API keys
 * and wallet apps, created, listed, pinned and revoked. The partner API's `/v1/api-keys` runs the
 * key operations for a partner's own keys. A new key's secret is answered once and never stored;
 * only its SHA-256 ({@link hashSecret}) and last four characters are, and no listing answers the digest.
 *
 * @module
 */
import {
  ApiKeyAdmin,
  type ApiVersion,
  type AppId,
  type CreateApiKeyInput,
  type CreateAppInput,
  type CreatedApp,
  CredentialAdminError,
  IdGenerator,
  type IssuedApiKey,
  isPinnableVersion,
  latestStableVersion,
  type Mode,
  Partner,
  type PartnerId,
  publishedVersions,
  traced
} from "@paygate/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { hashSecret, newApiKeySecret, secretHint } from "./ApiKeySecret.ts"
import { CredentialCache } from "./CredentialCache.ts"
import {
  appFromRow,
  type AppListing,
  keyFromRow,
  merchantFromRow,
  type MerchantListing,
  partnerFromRow,
  type PartnerListing
} from "./CredentialListing.ts"

export type { AppListing, MerchantListing, PartnerListing } from "./CredentialListing.ts"

/** `createPartner` input; `pinnedVersion` defaults to the newest stable version (API rules §3). */
export interface CreatePartnerInput {
  readonly name: string
  readonly pinnedVersion?: string | undefined
}

/** `listMerchants` filter: one partner's, one mode's, or all. */
export interface MerchantFilter {
  readonly partnerId?: PartnerId | undefined
  readonly mode?: Mode | undefined
}

const stableVersions = publishedVersions.filter(isPinnableVersion).join(", ")

/** Why `version` cannot be pinned (API rules §3: published stable versions only), or `undefined`. */
const pinRefusal = (version: string): string | undefined => {
  if (isPinnableVersion(version)) return undefined
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}(\.preview)?$/.test(version)) {
    return `"${version}" is not an API version (YYYY-MM-DD); stable versions: ${stableVersions}.`
  }
  return (publishedVersions as ReadonlyArray<string>).includes(version)
    ? `${version} is a preview version, which can't be pinned; stable versions: ${stableVersions}.`
    : `${version} is not a published API version; stable versions: ${stableVersions}.`
}

/**
 * Operator-side credential management over the SQL store: the domain's `ApiKeyAdmin` (keys and
 * wallet apps; a {@link CredentialCache} in the same context forgets a revoked one at once) and the
 * operator's own operations.
 */
export class CredentialAdmin extends Context.Service<CredentialAdmin, ApiKeyAdmin["Service"] & {
  /** Creates a partner account pinned to `pinnedVersion` (a published stable version). */
  readonly createPartner: (input: CreatePartnerInput) => Effect.Effect<Partner, CredentialAdminError>
  /**
   * The partner's own mode: `sandbox` when it has partner keys and every one of them (revoked ones
   * too) is a sandbox key, as a partner made for the sandbox has; otherwise `live`. An unknown
   * partner is `unknown_owner`.
   */
  readonly partnerMode: (partnerId: PartnerId) => Effect.Effect<Mode, CredentialAdminError>
  /**
   * Revokes a wallet app and every wallet key of it, in one transaction: its `App-Id` is no longer
   * found. Answers `false` for an unknown id; revoking again keeps the first time. A
   * {@link CredentialCache} in the same context forgets the app and its keys at once.
   */
  readonly revokeApp: (appId: string) => Effect.Effect<boolean>
  /**
   * Pins a partner to a published stable version (what its requests without `Svc-Version` use).
   * A {@link CredentialCache} in the same context forgets the partner's keys (which carry the pin).
   */
  readonly pinVersion: (partnerId: string, version: string) => Effect.Effect<ApiVersion, CredentialAdminError>
  /** Every partner, oldest first, with its unrevoked partner keys counted per mode. */
  readonly listPartners: Effect.Effect<ReadonlyArray<PartnerListing>>
  /** Merchants (deleted ones too), oldest first; an unknown `partnerId` is `unknown_owner`. */
  readonly listMerchants: (filter: MerchantFilter) => Effect.Effect<ReadonlyArray<MerchantListing>, CredentialAdminError>
  /** Every wallet app, oldest first, revoked ones too. */
  readonly listApps: Effect.Effect<ReadonlyArray<AppListing>>
}>()("@paygate/adapters/CredentialAdmin") {
  /**
   * Over the `SqlClient` and the domain's `IdGenerator` (which needs `SecureRandom`, e.g.
   * `SecureRandom.layerWebCrypto`); the same service is the domain's `ApiKeyAdmin` too.
   */
  static readonly layer: Layer.Layer<CredentialAdmin | ApiKeyAdmin, never, SqlClient.SqlClient | IdGenerator> = Layer.effectContext(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ids = yield* IdGenerator
      // Beside a cached credential store (the API process), a revoked key must stop working at once.
      const cache = yield* Effect.serviceOption(CredentialCache)

      const invalid = (message: string) => new CredentialAdminError({ reason: "invalid_input", message })

      const createPartner = Effect.fn("CredentialAdmin.createPartner")(function*(input: CreatePartnerInput) {
        const name = input.name.trim()
        if (name === "") return yield* invalid("A partner needs a name.")
        const pinnedVersion = input.pinnedVersion ?? latestStableVersion
        if (!isPinnableVersion(pinnedVersion)) return yield* invalid(pinRefusal(pinnedVersion)!)
        const partner = new Partner({ id: yield* ids.make("partner"), name, pinnedVersion, createdAt: yield* Clock.currentTimeMillis })
        yield* sql`INSERT INTO partners (id, name, pinned_version, created_at)
          VALUES (${partner.id}, ${partner.name}, ${partner.pinnedVersion}, ${partner.createdAt}::bigint)`.pipe(Effect.orDie)
        return partner
      })

      // Stores the key row; the secret leaves this function only in the response.
      const issue = Effect.fnUntraced(function*(input: CreateApiKeyInput) {
        const keyId = yield* ids.make("apiKey")
        const apiKey = newApiKeySecret(input.kind, input.mode)
        const now = yield* Clock.currentTimeMillis
        const partnerId = input.kind === "partner" ? input.partnerId : null
        const appId = input.kind === "wallet" ? input.appId : null
        yield* sql`INSERT INTO api_keys (id, kind, mode, partner_id, app_id, secret_sha256, hint, revoked_at, created_at)
          VALUES (${keyId}, ${input.kind}, ${input.mode}, ${partnerId}, ${appId}, ${hashSecret(apiKey)}, ${secretHint(apiKey)}, NULL, ${now}::bigint)`
        return { keyId, apiKey } satisfies IssuedApiKey
      })

      const createApiKey = Effect.fn("CredentialAdmin.createApiKey")(function*(input: CreateApiKeyInput) {
        if (input.kind === "partner") {
          const rows = yield* sql`SELECT 1 AS found FROM partners WHERE id = ${input.partnerId}`.pipe(Effect.orDie)
          if (rows.length === 0) {
            return yield* new CredentialAdminError({ reason: "unknown_owner", message: `No partner ${input.partnerId}.` })
          }
        } else {
          const rows = yield* sql<{ readonly mode: string; readonly revoked_at: unknown }>`SELECT mode, revoked_at FROM apps WHERE id = ${input.appId}`
            .pipe(Effect.orDie)
          const app = rows[0]
          if (app === undefined) return yield* new CredentialAdminError({ reason: "unknown_owner", message: `No app ${input.appId}.` })
          if (app.revoked_at !== null) {
            return yield* new CredentialAdminError({ reason: "revoked_owner", message: `App ${input.appId} is revoked.` })
          }
          if (app.mode !== input.mode) {
            return yield* new CredentialAdminError({
              reason: "mode_mismatch",
              message: `App ${input.appId} is a ${app.mode} app; its wallet keys are ${app.mode} keys.`
            })
          }
        }
        return yield* issue(input).pipe(Effect.orDie)
      })

      const partnerMode = Effect.fn("CredentialAdmin.partnerMode")(function*(partnerId: PartnerId) {
        const rows = yield* sql<{ readonly live: string | number; readonly sandbox: string | number }>`
          SELECT count(k.id) FILTER (WHERE k.mode = 'live') AS live, count(k.id) FILTER (WHERE k.mode = 'sandbox') AS sandbox
          FROM partners p LEFT JOIN api_keys k ON k.partner_id = p.id AND k.kind = 'partner'
          WHERE p.id = ${partnerId} GROUP BY p.id`.pipe(Effect.orDie)
        const counts = rows[0]
        if (counts === undefined) return yield* new CredentialAdminError({ reason: "unknown_owner", message: `No partner ${partnerId}.` })
        return Number(counts.live) === 0 && Number(counts.sandbox) > 0 ? "sandbox" as const : "live" as const
      })

      const revokeKey = Effect.fn("CredentialAdmin.revokeKey")(function*(keyId: string) {
        const now = yield* Clock.currentTimeMillis
        // The key's dashboard sessions end with it, in the same transaction.
        const rows = yield* Effect.gen(function*() {
          const revoked = yield* sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${now}::bigint) WHERE id = ${keyId} RETURNING id`
          yield* sql`DELETE FROM dashboard_sessions WHERE key_id = ${keyId}`
          return revoked
        }).pipe(sql.withTransaction, Effect.orDie)
        if (Option.isSome(cache)) cache.value.keys.invalidate((_, cached) => cached.key.id === keyId)
        return rows.length > 0
      })

      const createApp = Effect.fn("CredentialAdmin.createApp")(function*(input: CreateAppInput) {
        const name = input.name.trim()
        if (name === "") return yield* invalid("An app needs a name.")
        const appId = yield* ids.make("app")
        const now = yield* Clock.currentTimeMillis
        const { keyId, apiKey } = yield* Effect.gen(function*() {
          yield* sql`INSERT INTO apps (id, name, mode, created_at) VALUES (${appId}, ${name}, ${input.mode}, ${now}::bigint)`
          return yield* issue({ kind: "wallet", appId, mode: input.mode })
        }).pipe(sql.withTransaction, Effect.orDie)
        return { appId, keyId, walletApiKey: apiKey } satisfies CreatedApp
      })

      const findApp = (name: string, mode: Mode) =>
        sql<{ readonly id: string }>`SELECT id FROM apps
          WHERE name = ${name} AND mode = ${mode} AND revoked_at IS NULL ORDER BY created_at, id LIMIT 1`.pipe(
          Effect.map(([found]) => Option.fromNullishOr(found?.id as AppId | undefined)),
          Effect.orDie,
          traced("CredentialAdmin.findApp")
        )

      const revokeApp = Effect.fn("CredentialAdmin.revokeApp")(function*(appId: string) {
        const now = yield* Clock.currentTimeMillis
        const found = yield* Effect.gen(function*() {
          const rows = yield* sql`UPDATE apps SET revoked_at = COALESCE(revoked_at, ${now}::bigint) WHERE id = ${appId} RETURNING id`
          yield* sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${now}::bigint) WHERE app_id = ${appId}`
          return rows.length > 0
        }).pipe(sql.withTransaction, Effect.orDie)
        if (Option.isSome(cache)) {
          cache.value.apps.invalidate((id) => id === appId)
          cache.value.keys.invalidate((_, cached) => cached.key.appId === appId)
        }
        return found
      })

      const unknownPartner = (partnerId: string) =>
        new CredentialAdminError({ reason: "unknown_owner", message: `No partner ${partnerId}.` })

      const pinVersion = Effect.fn("CredentialAdmin.pinVersion")(function*(partnerId: string, version: string) {
        if (!isPinnableVersion(version)) return yield* invalid(pinRefusal(version)!)
        const rows = yield* sql`UPDATE partners SET pinned_version = ${version} WHERE id = ${partnerId} RETURNING id`.pipe(Effect.orDie)
        if (Option.isSome(cache)) cache.value.keys.invalidate((_, cached) => cached.partner?.id === partnerId)
        if (rows.length === 0) return yield* unknownPartner(partnerId)
        return version
      })

      const requirePartner = Effect.fnUntraced(function*(partnerId: string) {
        const rows = yield* sql`SELECT 1 AS found FROM partners WHERE id = ${partnerId}`.pipe(Effect.orDie)
        if (rows.length === 0) return yield* unknownPartner(partnerId)
      })

      const listPartners = sql`SELECT p.id, p.name, p.pinned_version, p.created_at,
          count(k.id) FILTER (WHERE k.mode = 'live') AS live_keys,
          count(k.id) FILTER (WHERE k.mode = 'sandbox') AS sandbox_keys
        FROM partners p LEFT JOIN api_keys k ON k.partner_id = p.id AND k.revoked_at IS NULL
        GROUP BY p.id ORDER BY p.created_at, p.id`.pipe(
        Effect.map((rows) => rows.map(partnerFromRow)),
        Effect.orDie,
        traced("CredentialAdmin.listPartners")
      )

      const listMerchants = Effect.fn("CredentialAdmin.listMerchants")(function*(filter: MerchantFilter) {
        const where: Array<Fragment> = []
        if (filter.partnerId !== undefined) {
          yield* requirePartner(filter.partnerId)
          where.push(sql`partner_id = ${filter.partnerId}`)
        }
        if (filter.mode !== undefined) where.push(sql`mode = ${filter.mode}`)
        const rows = yield* sql`SELECT id, partner_id, mode, name, deleted, created_at FROM merchants
          WHERE ${sql.and(where)} ORDER BY created_at, id`.pipe(Effect.orDie)
        return rows.map(merchantFromRow)
      })

      const listApps = sql`SELECT id, name, mode, created_at, revoked_at FROM apps ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(appFromRow)),
        Effect.orDie,
        traced("CredentialAdmin.listApps")
      )

      // Never selects secret_sha256.
      const listKeys = Effect.fn("CredentialAdmin.listKeys")(function*(partnerId?: PartnerId | undefined) {
        if (partnerId !== undefined) yield* requirePartner(partnerId)
        const where = partnerId === undefined ? sql`TRUE` : sql`partner_id = ${partnerId}`
        const rows = yield* sql`SELECT id, kind, mode, COALESCE(partner_id, app_id) AS owner_id, hint, created_at, revoked_at
          FROM api_keys WHERE ${where} ORDER BY created_at, id`.pipe(Effect.orDie)
        return rows.map(keyFromRow)
      })

      const admin = CredentialAdmin.of({
        createPartner,
        partnerMode,
        createApiKey,
        revokeKey,
        createApp,
        findApp,
        revokeApp,
        pinVersion,
        listPartners,
        listMerchants,
        listApps,
        listKeys
      })
      return Context.make(CredentialAdmin, admin).pipe(Context.add(ApiKeyAdmin, admin))
    })
  )
}
