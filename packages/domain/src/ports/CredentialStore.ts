import { Context, type Effect, type Option } from "effect"
import type { ApiKeyId, AppId, PartnerId } from "../ids/Ids.ts"
import type { Partner } from "../partner/Partner.ts"
import type { Mode } from "../payment/Payment.ts"

/** A stored API key: only the SHA-256 of the secret is kept. */
export interface ApiKeyRecord {
  readonly id: ApiKeyId
  /** `partner` keys call the partner and merchant APIs; `wallet` keys call the gateway. */
  readonly kind: "partner" | "wallet"
  readonly mode: Mode
  /** Owner: the partner (partner keys) or the app (wallet keys). */
  readonly partnerId: PartnerId | null
  readonly appId: AppId | null
  readonly revoked: boolean
  /** Hex SHA-256 of the secret, compared in constant time by the authenticator. */
  readonly secretSha256: string
}

/** A public wallet app (gateway `App-Id`). */
export interface AppRecord {
  readonly id: AppId
  readonly mode: Mode
  readonly name: string
}

/** A key and, for a partner key, its partner: what authentication needs, read at once. */
export interface KeyWithPartner {
  readonly key: ApiKeyRecord
  /** The partner owning a partner key; `null` for wallet keys (and for a partner that is gone). */
  readonly partner: Partner | null
}

/** Looks up credentials by the hash of the presented secret; never sees or stores the secret itself. */
export class CredentialStore extends Context.Service<CredentialStore, {
  /** The key whose secret hashes to `sha256Hex`, if any. */
  readonly findKeyByHash: (sha256Hex: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  /** {@link findKeyByHash} with the key's partner, in one read. */
  readonly findKeyWithPartner: (sha256Hex: string) => Effect.Effect<Option.Option<KeyWithPartner>>
  /** The app with this id, if any. */
  readonly findApp: (id: AppId) => Effect.Effect<Option.Option<AppRecord>>
  /** The partner with this id, if any. */
  readonly findPartner: (id: PartnerId) => Effect.Effect<Option.Option<Partner>>
}>()("@paygate/domain/CredentialStore") {}
