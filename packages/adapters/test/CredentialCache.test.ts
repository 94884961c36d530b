import { CredentialAdmin, CredentialCache, hashSecret, Migrations, SqlPersistence } from "@paygate/adapters"
import { type AppId, CredentialStore, IdGenerator, Merchant, MerchantRepository } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { newMerchant, newPartner } from "./support/Fixtures.ts"
import { databasesUnderTest } from "./support/TestDatabase.ts"

const ttlMillis = 10_000

// The SQL ports and CredentialAdmin beside one cache, as the API process wires them.
const cachedLayer = (fresh: (typeof databasesUnderTest)[number]["fresh"]) =>
  Layer.mergeAll(SqlPersistence.layer, CredentialAdmin.layer).pipe(
    Layer.provideMerge(CredentialCache.layerWith({ ttlMillis, maxEntries: 2 })),
    Layer.provideMerge(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(fresh())
  )

// What another process (the operator CLI, another API instance) does: write the database directly.
const revokeElsewhere = (keyId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE api_keys SET revoked_at = 1 WHERE id = ${keyId}`
  })

const newKey = Effect.gen(function*() {
  const partner = yield* newPartner()
  const key = yield* (yield* CredentialAdmin).createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" }).pipe(Effect.orDie)
  return { partner, keyId: key.keyId, digest: hashSecret(key.apiKey) }
})

const revoked = (digest: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* CredentialStore).findKeyWithPartner(digest)
    return Option.getOrThrow(found).key.revoked
  })

for (const db of databasesUnderTest) {
  layer(cachedLayer(db.fresh), { excludeTestServices: true, timeout: "120 seconds" })(`CredentialCache [${db.name}]`, (it) => {
    const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, TestClock.layer())

    it.effect("answers a key with its partner in one read, then from the cache until the TTL is over", () =>
      Effect.gen(function*() {
        const { digest, keyId, partner } = yield* newKey
        const found = Option.getOrThrow(yield* (yield* CredentialStore).findKeyWithPartner(digest))
        assert.strictEqual(found.key.id, keyId)
        assert.deepStrictEqual(found.partner, partner)
        yield* revokeElsewhere(keyId)
        yield* TestClock.adjust(ttlMillis - 1)
        assert.isFalse(yield* revoked(digest), "a revocation elsewhere is seen only after the TTL")
        yield* TestClock.adjust(1)
        assert.isTrue(yield* revoked(digest))
      }).pipe(withTestClock))

    it.effect("forgets a key revoked through CredentialAdmin in this process at once", () =>
      Effect.gen(function*() {
        const { digest, keyId } = yield* newKey
        assert.isFalse(yield* revoked(digest))
        assert.isTrue(yield* (yield* CredentialAdmin).revokeKey(keyId))
        assert.isTrue(yield* revoked(digest))
      }).pipe(withTestClock))

    it.effect("forgets an app revoked through CredentialAdmin in this process at once, with its wallet keys", () =>
      Effect.gen(function*() {
        const admin = yield* CredentialAdmin
        const store = yield* CredentialStore
        const app = yield* admin.createApp({ name: "Cached wallet", mode: "sandbox" }).pipe(Effect.orDie)
        const digest = hashSecret(app.walletApiKey)
        assert.isTrue(Option.isSome(yield* store.findApp(app.appId)))
        assert.isFalse(yield* revoked(digest))
        assert.isTrue(yield* admin.revokeApp(app.appId))
        assert.isTrue(Option.isNone(yield* store.findApp(app.appId)))
        assert.isTrue(yield* revoked(digest))
      }).pipe(withTestClock))

    it.effect("forgets the keys of a partner re-pinned through CredentialAdmin in this process at once", () =>
      Effect.gen(function*() {
        const { digest, partner } = yield* newKey
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE partners SET pinned_version = '2025-06-01' WHERE id = ${partner.id}`
        const pin = Effect.map((yield* CredentialStore).findKeyWithPartner(digest), (found) => Option.getOrThrow(found).partner?.pinnedVersion)
        assert.strictEqual(yield* pin, "2025-06-01")
        yield* (yield* CredentialAdmin).pinVersion(partner.id, "2026-02-18").pipe(Effect.orDie)
        assert.strictEqual(yield* pin, "2026-02-18")
      }).pipe(withTestClock))

    it.effect("keeps at most its configured number of keys, the least recently used going first", () =>
      Effect.gen(function*() {
        const [a, b, c] = [yield* newKey, yield* newKey, yield* newKey]
        for (const key of [a, b, c]) assert.isFalse(yield* revoked(key.digest)) // a is dropped when c comes in
        for (const key of [a, b, c]) yield* revokeElsewhere(key.keyId)
        assert.isFalse(yield* revoked(b.digest), "b is still cached")
        assert.isFalse(yield* revoked(c.digest), "c is still cached")
        assert.isTrue(yield* revoked(a.digest), "a was read again")
      }).pipe(withTestClock))

    it.effect("does not remember unknown keys: a key created elsewhere works at once", () =>
      Effect.gen(function*() {
        const partner = yield* newPartner()
        const digest = hashSecret(`sk_test_${"x".repeat(32)}${partner.id}`)
        const store = yield* CredentialStore
        assert.isTrue(Option.isNone(yield* store.findKeyWithPartner(digest)))
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO api_keys (id, kind, mode, partner_id, app_id, secret_sha256, revoked_at, created_at)
          VALUES (${`key_${partner.id.slice(4)}`}, 'partner', 'sandbox', ${partner.id}, NULL, ${digest}, NULL, 1)`
        assert.isTrue(Option.isSome(yield* store.findKeyWithPartner(digest)))
      }).pipe(withTestClock))

    it.effect("keeps apps for the TTL", () =>
      Effect.gen(function*() {
        const app = yield* (yield* CredentialAdmin).createApp({ name: "Before", mode: "sandbox" }).pipe(Effect.orDie)
        const store = yield* CredentialStore
        const name = (id: AppId) => Effect.map(store.findApp(id), (found) => Option.getOrThrow(found).name)
        assert.strictEqual(yield* name(app.appId), "Before")
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE apps SET name = 'After' WHERE id = ${app.appId}`
        assert.strictEqual(yield* name(app.appId), "Before")
        yield* TestClock.adjust(ttlMillis)
        assert.strictEqual(yield* name(app.appId), "After")
      }).pipe(withTestClock))

    it.effect("serves merchants from the cache only for recent reads; a write drops the copy", () =>
      Effect.gen(function*() {
        const repo = yield* MerchantRepository
        const merchant = yield* newMerchant(yield* newPartner())
        const find = Effect.map(repo.findById(merchant.partnerId, merchant.mode, merchant.id), Option.getOrThrow)
        const cached = Effect.map(repo.findById(merchant.partnerId, merchant.mode, merchant.id, "recent"), Option.getOrThrow)
        assert.isFalse((yield* cached).deleted)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE merchants SET deleted = true WHERE id = ${merchant.id}`
        assert.isFalse((yield* cached).deleted, "another process's delete is seen after the TTL")
        assert.isTrue((yield* find).deleted, "current reads (the default) are always fresh")
        yield* repo.update(new Merchant({ ...merchant, name: "Renamed", deleted: true }))
        const after = yield* cached
        assert.strictEqual(after.name, "Renamed", "this process's write is seen at once")
        assert.isTrue(after.deleted)
      }).pipe(withTestClock))
  })
}
