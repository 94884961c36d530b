/**
 * An in-process cache of what every authenticated request reads: API keys (by the SHA-256 of
 * their secret) with their partner, wallet apps, and the merchants the merchant API names. Without
 * it each request spends two to three database round trips before its own work.
 *
 * What a cache costs, and what bounds it:
 * - Entries live `CREDENTIAL_CACHE_SECONDS` (default 10; 0 turns the cache off), at most
 *   `CREDENTIAL_CACHE_MAX_ENTRIES` of each kind (default 10,000; about the least recently used go
 *   first: the second-chance eviction of internal/TtlCache.ts).
 * - A key revoked by `CredentialAdmin.revokeKey` in the same process stops working at once; one
 *   revoked elsewhere (the operator CLI, another API process) within the TTL. The same holds for a
 *   merchant deleted through another process: it may take new payments for up to the TTL.
 * - Only found records are kept (a key or app created elsewhere works at once); secrets never are,
 *   only their digests, as in the database.
 * - Merchants are served from the cache only for `recent` reads (the domain's `MerchantRead`: the
 *   merchant API, whose requests only read the merchant); the partner API, which changes merchants,
 *   always reads them `current`. Every merchant write of this process drops the cached copy.
 *
 * The SQL adapters (`SqlCredentialStore`, `SqlMerchantRepository`) and `CredentialAdmin` use the
 * cache when the host provides one (`Application.ts` does); without it they read the database each time.
 *
 * @module
 */
import type { AppId, AppRecord, KeyWithPartner, Merchant, MerchantId, Mode, PartnerId } from "@paygate/domain"
import { Config, Context, Effect, Layer } from "effect"
import * as Configuration from "./Configuration.ts"
import * as TtlCache from "./internal/TtlCache.ts"

/** How long entries live and how many of each kind are kept. */
export interface CredentialCacheSettings {
  readonly ttlMillis: number
  readonly maxEntries: number
}

/** The cache key of a merchant as the merchant API names it. */
export const merchantKey = (partnerId: PartnerId, mode: Mode, id: MerchantId) => `${partnerId}/${mode}/${id}`

/** The caches of keys, apps and merchants. */
export class CredentialCache extends Context.Service<CredentialCache, {
  /** Keys (with their partner) by the hex SHA-256 of their secret. */
  readonly keys: TtlCache.TtlCache<string, KeyWithPartner>
  readonly apps: TtlCache.TtlCache<AppId, AppRecord>
  /** Merchants by {@link merchantKey}. */
  readonly merchants: TtlCache.TtlCache<string, Merchant>
}>()("@paygate/adapters/CredentialCache") {
  /** A cache with these settings. */
  static readonly layerWith = (settings: CredentialCacheSettings): Layer.Layer<CredentialCache> =>
    Layer.sync(CredentialCache, () =>
      CredentialCache.of({ keys: TtlCache.make(settings), apps: TtlCache.make(settings), merchants: TtlCache.make(settings) }))

  /** A cache configured by `CREDENTIAL_CACHE_SECONDS` (default 10) and `CREDENTIAL_CACHE_MAX_ENTRIES` (default 10,000). */
  static readonly layer: Layer.Layer<CredentialCache, Config.ConfigError> = Layer.unwrap(
    Effect.gen(function*() {
      // 0 (or less) for either turns the cache off.
      const { maxEntries, seconds } = yield* Configuration.credentialCache
      return CredentialCache.layerWith({ ttlMillis: seconds * 1000, maxEntries })
    })
  )
}
