/**
 * Credential administration for the operator CLI and the first-start bootstrap (not part of any
 * API): partners, API keys and wallet apps. A new key's secret is answered once and never
 * stored; only its SHA-256 ({@link hashSecret}) is.
 *
 * @module
 */
import { type ApiKeyId, type AppId, IdGenerator, isPinnableVersion, latestStableVersion, type Mode, Partner, type PartnerId } from "@paygate/domain"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { hashSecret, newApiKeySecret } from "./ApiKeySecret.ts"
import { CredentialCache } from "./CredentialCache.ts"

/** Why an administrative request was refused. */
export class CredentialAdminError extends Schema.TaggedError<CredentialAdminError>()("CredentialAdminError", {
  reason: Schema.Literals(["invalid_input", "unknown_owner", "mode_mismatch"]),
  message: Schema.String
}) {}

/** `createPartner` input; `pinnedVersion` defaults to the newest stable version (contract §4). */
export interface CreatePartnerInput {
  readonly name: string
  readonly pinnedVersion?: string | undefined
}

/** `createApiKey` input: a partner key for a partner, or a wallet key for an app of the same mode. */
export type CreateApiKeyInput =
  | { readonly kind: "partner"; readonly partnerId: PartnerId; readonly mode: Mode }
  | { readonly kind: "wallet"; readonly appId: AppId; readonly mode: Mode }

/** A newly issued key. `apiKey` is the secret: show it once, it cannot be recovered. */
export interface IssuedApiKey {
  readonly keyId: ApiKeyId
  readonly apiKey: string
}

/** `createApp` input. */
export interface CreateAppInput {
  readonly name: string
  readonly mode: Mode
}

/** A newly created wallet app (public `App-Id`) and its first wallet key (secret shown once). */
export interface CreatedApp {
  readonly appId: AppId
  readonly keyId: ApiKeyId
  readonly walletApiKey: string
}

/** Operator-side credential management over the SQL store. */
export class CredentialAdmin extends Context.Service<CredentialAdmin, {
  /** Creates a partner account pinned to `pinnedVersion` (a published stable version). */
  readonly createPartner: (input: CreatePartnerInput) => Effect.Effect<Partner, CredentialAdminError>
  /** Issues a key: `sk_live_`/`sk_test_` for partners, `wk_live_`/`wk_test_` for apps. */
  readonly createApiKey: (input: CreateApiKeyInput) => Effect.Effect<IssuedApiKey, CredentialAdminError>
  /**
   * Revokes a key; answers `true` when the key exists (revoking a revoked key keeps its first
   * revocation time) and `false` for an unknown id. A {@link CredentialCache} in the same context
   * forgets the key at once.
   */
  readonly revokeKey: (keyId: string) => Effect.Effect<boolean>
  /** Creates a wallet app and its first wallet key. */
  readonly createApp: (input: CreateAppInput) => Effect.Effect<CreatedApp, CredentialAdminError>
}>()("@paygate/adapters/CredentialAdmin") {
  /** Over the `SqlClient` and the domain's `IdGenerator` (which needs `SecureRandom`, e.g. `SecureRandom.layerWebCrypto`). */
  static readonly layer: Layer.Layer<CredentialAdmin, never, SqlClient.SqlClient | IdGenerator> = Layer.effect(
    CredentialAdmin,
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
        if (!isPinnableVersion(pinnedVersion)) {
          return yield* invalid(`${pinnedVersion} is not a published stable API version.`)
        }
        const partner = new Partner({ id: yield* ids.make("partner"), name, pinnedVersion, createdAt: yield* Clock.currentTimeMillis })
        yield* sql`INSERT INTO partners (id, name, pinned_version, created_at)
          VALUES (${partner.id}, ${partner.name}, ${partner.pinnedVersion}, ${partner.createdAt}::bigint)`.pipe(Effect.orDie)
        return partner
      })

      // Stores the key row; the secret leaves this function only in the answer.
      const issue = Effect.fnUntraced(function*(input: CreateApiKeyInput) {
        const keyId = yield* ids.make("apiKey")
        const apiKey = newApiKeySecret(input.kind, input.mode)
        const now = yield* Clock.currentTimeMillis
        const partnerId = input.kind === "partner" ? input.partnerId : null
        const appId = input.kind === "wallet" ? input.appId : null
        yield* sql`INSERT INTO api_keys (id, kind, mode, partner_id, app_id, secret_sha256, revoked_at, created_at)
          VALUES (${keyId}, ${input.kind}, ${input.mode}, ${partnerId}, ${appId}, ${hashSecret(apiKey)}, NULL, ${now}::bigint)`
        return { keyId, apiKey } satisfies IssuedApiKey
      })

      const createApiKey = Effect.fn("CredentialAdmin.createApiKey")(function*(input: CreateApiKeyInput) {
        if (input.kind === "partner") {
          const rows = yield* sql`SELECT 1 AS found FROM partners WHERE id = ${input.partnerId}`.pipe(Effect.orDie)
          if (rows.length === 0) {
            return yield* new CredentialAdminError({ reason: "unknown_owner", message: `No partner ${input.partnerId}.` })
          }
        } else {
          const rows = yield* sql<{ readonly mode: string }>`SELECT mode FROM apps WHERE id = ${input.appId}`.pipe(Effect.orDie)
          const app = rows[0]
          if (app === undefined) return yield* new CredentialAdminError({ reason: "unknown_owner", message: `No app ${input.appId}.` })
          if (app.mode !== input.mode) {
            return yield* new CredentialAdminError({
              reason: "mode_mismatch",
              message: `App ${input.appId} is a ${app.mode} app; its wallet keys are ${app.mode} keys.`
            })
          }
        }
        return yield* issue(input).pipe(Effect.orDie)
      })

      const revokeKey = Effect.fn("CredentialAdmin.revokeKey")(function*(keyId: string) {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${now}::bigint) WHERE id = ${keyId} RETURNING id`
          .pipe(Effect.orDie)
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

      return CredentialAdmin.of({ createPartner, createApiKey, revokeKey, createApp })
    })
  )
}
