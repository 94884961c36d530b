import { Context, type Effect, type Option, Schema } from "effect"
import { ApiKeyId, AppId, PartnerId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"

/** Why an administrative request was refused. */
export class CredentialAdminError extends Schema.TaggedError<CredentialAdminError>()("CredentialAdminError", {
  reason: Schema.Literals(["invalid_input", "unknown_owner", "mode_mismatch", "revoked_owner"]),
  message: Schema.String
}) {}

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

/** A key: its owner is a partner (`kind` partner) or a wallet app (`kind` wallet). Times are Unix milliseconds. */
export const KeyListing = Schema.Struct({
  keyId: ApiKeyId,
  kind: Schema.Literals(["partner", "wallet"]),
  ownerId: Schema.Union([PartnerId, AppId]),
  mode: Mode,
  /** The secret's last characters (`null` for keys issued before hints were kept). */
  hint: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  revokedAt: Schema.NullOr(Schema.Number)
})
export type KeyListing = typeof KeyListing.Type

/**
 * API keys and wallet apps, issued, listed and revoked: what the partner API's `/v1/api-keys` and
 * the hosted checkout's own apps need of credential administration (the operator's tools do more).
 * A new key's secret is answered once and never stored, only its digest (`SecretDigest`) and its
 * last characters; no listing answers the digest.
 */
export class ApiKeyAdmin extends Context.Service<ApiKeyAdmin, {
  /** Issues a key: `sk_live_`/`sk_test_` for partners, `wk_live_`/`wk_test_` for apps. */
  readonly createApiKey: (input: CreateApiKeyInput) => Effect.Effect<IssuedApiKey, CredentialAdminError>
  /**
   * Revokes a key and ends its dashboard sessions; answers `true` when the key exists (revoking a
   * revoked key keeps its first revocation time) and `false` for an unknown id. A cached
   * `CredentialStore` forgets the key at once.
   */
  readonly revokeKey: (keyId: string) => Effect.Effect<boolean>
  /** Creates a wallet app and its first wallet key. */
  readonly createApp: (input: CreateAppInput) => Effect.Effect<CreatedApp, CredentialAdminError>
  /** The oldest app named `name` in `mode` that is not revoked, if any (so instances converge on one). */
  readonly findApp: (name: string, mode: Mode) => Effect.Effect<Option.Option<AppId>>
  /** Keys, oldest first: all, or one partner's (an unknown `partnerId` is `unknown_owner`). */
  readonly listKeys: (partnerId?: PartnerId | undefined) => Effect.Effect<ReadonlyArray<KeyListing>, CredentialAdminError>
}>()("@paygate/domain/ApiKeyAdmin") {}
