import { CredentialAdmin, hashSecret } from "@paygate/adapters"
import { CredentialStore, latestStableVersion, type PartnerId } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner } from "./support/Fixtures.ts"

const secretShape = /^(sk|wk)_(live|test)_[A-Za-z0-9_-]{43}$/

adapterSuite("CredentialAdmin and SqlCredentialStore", (it) => {
  it.effect("creates a partner and its keys; keys are found by hash only, and revoked", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const store = yield* CredentialStore
      const partner = yield* admin.createPartner({ name: "Acme Payments" })
      assert.strictEqual(partner.pinnedVersion, latestStableVersion)
      assert.deepStrictEqual(yield* store.findPartner(partner.id), Option.some(partner))

      const live = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "live" })
      const test = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" })
      assert.match(live.apiKey, secretShape)
      assert.isTrue(live.apiKey.startsWith("sk_live_"))
      assert.isTrue(test.apiKey.startsWith("sk_test_"))
      assert.notStrictEqual(live.apiKey, test.apiKey)

      assert.deepStrictEqual(yield* store.findKeyByHash(hashSecret(live.apiKey)), Option.some({
        id: live.keyId,
        kind: "partner" as const,
        mode: "live" as const,
        partnerId: partner.id,
        appId: null,
        revoked: false,
        secretSha256: hashSecret(live.apiKey)
      }))
      assert.isTrue(Option.isNone(yield* store.findKeyByHash(hashSecret(`${live.apiKey}x`))))

      assert.isTrue(yield* admin.revokeKey(live.keyId))
      assert.isTrue(yield* admin.revokeKey(live.keyId), "revoking again is harmless")
      assert.isFalse(yield* admin.revokeKey("key_UNKNOWN"))
      assert.deepStrictEqual(Option.map(yield* store.findKeyByHash(hashSecret(live.apiKey)), (k) => k.revoked), Option.some(true))
      assert.deepStrictEqual(Option.map(yield* store.findKeyByHash(hashSecret(test.apiKey)), (k) => k.revoked), Option.some(false))
    }))

  it.effect("never stores a secret in plain text", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const sql = yield* SqlClient.SqlClient
      const partner = yield* admin.createPartner({ name: "Plaintext check" })
      const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" })
      const app = yield* admin.createApp({ name: "Wallet", mode: "sandbox" })
      for (const secret of [key.apiKey, app.walletApiKey]) {
        const body = secret.slice(secret.indexOf("_", 3) + 1)
        const rows = yield* sql<{ readonly row: string }>`SELECT row_to_json(k)::text AS row FROM api_keys k`
        for (const { row } of rows) {
          assert.notInclude(row, secret)
          assert.notInclude(row, body)
        }
        const stored = yield* sql<{ readonly secret_sha256: string }>`SELECT secret_sha256 FROM api_keys WHERE secret_sha256 = ${hashSecret(secret)}`
        assert.strictEqual(stored.length, 1)
      }
      assert.strictEqual(hashSecret("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }))

  it.effect("creates wallet apps with a wallet key of the app's mode", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const store = yield* CredentialStore
      const app = yield* admin.createApp({ name: "Demo Wallet", mode: "live" })
      assert.match(app.appId, /^app_[0-9A-Z]{26}$/)
      assert.isTrue(app.walletApiKey.startsWith("wk_live_"))
      assert.deepStrictEqual(yield* store.findApp(app.appId), Option.some({ id: app.appId, mode: "live" as const, name: "Demo Wallet" }))
      assert.deepStrictEqual(
        Option.map(yield* store.findKeyByHash(hashSecret(app.walletApiKey)), (k) => [k.id, k.kind, k.mode, k.appId, k.partnerId]),
        Option.some([app.keyId, "wallet", "live", app.appId, null])
      )
      const second = yield* admin.createApiKey({ kind: "wallet", appId: app.appId, mode: "live" })
      assert.isTrue(second.apiKey.startsWith("wk_live_"))
      assert.isTrue(Option.isNone(yield* store.findApp("app_UNKNOWN" as typeof app.appId)))
    }))

  it.effect("refuses bad input with typed errors", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const reason = <A>(effect: Effect.Effect<A, { readonly reason: string }>) => Effect.flip(effect).pipe(Effect.map((e) => e.reason))
      assert.strictEqual(yield* reason(admin.createPartner({ name: " " })), "invalid_input")
      assert.strictEqual(yield* reason(admin.createPartner({ name: "X", pinnedVersion: "2026-02-19.preview" })), "invalid_input")
      assert.strictEqual(yield* reason(admin.createPartner({ name: "X", pinnedVersion: "2020-01-01" })), "invalid_input")
      assert.strictEqual(
        yield* reason(admin.createApiKey({ kind: "partner", partnerId: "ptn_UNKNOWN" as never, mode: "live" })),
        "unknown_owner"
      )
      const app = yield* admin.createApp({ name: "Sandbox wallet", mode: "sandbox" })
      assert.strictEqual(yield* reason(admin.createApiKey({ kind: "wallet", appId: app.appId, mode: "live" })), "mode_mismatch")
      assert.strictEqual(yield* reason(admin.createApiKey({ kind: "wallet", appId: "app_UNKNOWN" as never, mode: "live" })), "unknown_owner")
    }))

  it.effect("lists partners, merchants, apps and keys, never with a secret or its digest", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const partner = yield* newPartner("Listed partner")
      const quiet = yield* newPartner("Partner without keys")
      const live = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "live" })
      const gone = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "live" })
      const test = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" })
      yield* admin.revokeKey(gone.keyId)
      const shop = yield* newMerchant(partner, { mode: "live", name: "Live shop", createdAt: 1_700_000_000_000 })
      const sandboxShop = yield* newMerchant(partner, { mode: "sandbox", createdAt: 1_700_000_000_001 })
      const otherShop = yield* newMerchant(quiet, { mode: "sandbox", createdAt: 1_700_000_000_002 })
      const app = yield* admin.createApp({ name: "Listed wallet", mode: "sandbox" })

      const partners = yield* admin.listPartners
      const listed = partners.find((p) => p.partnerId === partner.id)
      assert.deepStrictEqual(listed, {
        partnerId: partner.id,
        name: "Listed partner",
        pinnedVersion: latestStableVersion,
        createdAt: partner.createdAt,
        activeKeys: { live: 1, sandbox: 1 }
      })
      assert.deepStrictEqual(partners.find((p) => p.partnerId === quiet.id)?.activeKeys, { live: 0, sandbox: 0 })

      const ids = (rows: ReadonlyArray<{ readonly merchantId: string }>) => rows.map((m) => m.merchantId)
      assert.deepStrictEqual(yield* admin.listMerchants({ partnerId: partner.id }), [
        { merchantId: shop.id, partnerId: partner.id, mode: "live", name: "Live shop", deleted: false, createdAt: 1_700_000_000_000 },
        { merchantId: sandboxShop.id, partnerId: partner.id, mode: "sandbox", name: sandboxShop.name, deleted: false, createdAt: 1_700_000_000_001 }
      ])
      assert.deepStrictEqual(ids(yield* admin.listMerchants({ partnerId: partner.id, mode: "sandbox" })), [sandboxShop.id])
      const sandbox = ids(yield* admin.listMerchants({ mode: "sandbox" }))
      assert.includeMembers(sandbox, [sandboxShop.id, otherShop.id])
      assert.notInclude(sandbox, shop.id)
      assert.includeMembers(ids(yield* admin.listMerchants({})), [shop.id, sandboxShop.id, otherShop.id])
      const unknown = yield* Effect.flip(admin.listMerchants({ partnerId: "ptn_UNKNOWN" as PartnerId }))
      assert.strictEqual(unknown.reason, "unknown_owner")

      const apps = yield* admin.listApps
      assert.deepInclude(apps, { appId: app.appId, name: "Listed wallet", mode: "sandbox", revoked: false, createdAt: apps.find((a) => a.appId === app.appId)!.createdAt, revokedAt: null })

      const keys = yield* admin.listKeys(partner.id)
      // As a set: keys made in the same millisecond are ordered by their ids' random part.
      assert.sameDeepMembers(keys.map((k) => [k.keyId, k.kind, k.ownerId, k.mode, k.revokedAt === null]), [
        [live.keyId, "partner", partner.id, "live", true],
        [gone.keyId, "partner", partner.id, "live", false],
        [test.keyId, "partner", partner.id, "sandbox", true]
      ])
      const all = yield* admin.listKeys()
      assert.deepStrictEqual(
        all.filter((k) => k.keyId === app.keyId).map((k) => [k.kind, k.ownerId, k.mode]),
        [["wallet", app.appId, "sandbox"]]
      )
      assert.strictEqual((yield* Effect.flip(admin.listKeys("ptn_UNKNOWN" as PartnerId))).reason, "unknown_owner")

      // Nothing of a secret: neither the key, its random part, nor its SHA-256.
      const printed = JSON.stringify([partners, yield* admin.listMerchants({}), apps, all])
      for (const secret of [live.apiKey, gone.apiKey, test.apiKey, app.walletApiKey]) {
        assert.notInclude(printed, secret.slice(8, 20))
        assert.notInclude(printed, hashSecret(secret))
      }
      assert.notMatch(printed, /[0-9a-f]{64}|secret|sha256/i)
    }))

  it.effect("revokes a wallet app with its wallet keys", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const store = yield* CredentialStore
      const app = yield* admin.createApp({ name: "Revoked wallet", mode: "sandbox" })
      const second = yield* admin.createApiKey({ kind: "wallet", appId: app.appId, mode: "sandbox" })
      const other = yield* admin.createApp({ name: "Kept wallet", mode: "sandbox" })
      assert.isTrue(yield* admin.revokeApp(app.appId))
      assert.isTrue(Option.isNone(yield* store.findApp(app.appId)), "its App-Id is no longer found")
      for (const secret of [app.walletApiKey, second.apiKey]) {
        assert.deepStrictEqual(Option.map(yield* store.findKeyByHash(hashSecret(secret)), (k) => k.revoked), Option.some(true))
      }
      assert.isTrue(Option.isSome(yield* store.findApp(other.appId)))
      assert.deepStrictEqual(Option.map(yield* store.findKeyByHash(hashSecret(other.walletApiKey)), (k) => k.revoked), Option.some(false))

      const revokedAt = (yield* admin.listApps).find((a) => a.appId === app.appId)?.revokedAt
      assert.isNumber(revokedAt)
      assert.isTrue(yield* admin.revokeApp(app.appId), "revoking again is harmless")
      assert.strictEqual((yield* admin.listApps).find((a) => a.appId === app.appId)?.revokedAt, revokedAt, "and keeps the first time")
      assert.isFalse(yield* admin.revokeApp("app_UNKNOWN"))
      const refused = yield* Effect.flip(admin.createApiKey({ kind: "wallet", appId: app.appId, mode: "sandbox" }))
      assert.strictEqual(refused.reason, "revoked_owner")
    }))

  it.effect("pins a partner to a published stable version only", () =>
    Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const store = yield* CredentialStore
      const sql = yield* SqlClient.SqlClient
      const partner = yield* newPartner("Pinned partner")
      // An older pin than any published version, as a partner created long ago would have.
      yield* sql`UPDATE partners SET pinned_version = '2025-06-01' WHERE id = ${partner.id}`
      assert.strictEqual(yield* admin.pinVersion(partner.id, "2026-02-18"), "2026-02-18")
      assert.deepStrictEqual(Option.map(yield* store.findPartner(partner.id), (p) => p.pinnedVersion), Option.some("2026-02-18"))

      const refusal = (version: string) => Effect.flip(admin.pinVersion(partner.id, version))
      const preview = yield* refusal("2026-02-19.preview")
      assert.strictEqual(preview.reason, "invalid_input")
      assert.strictEqual(preview.message, "2026-02-19.preview is a preview version, which can't be pinned; stable versions: 2026-02-18.")
      assert.strictEqual((yield* refusal("2020-01-01")).message, "2020-01-01 is not a published API version; stable versions: 2026-02-18.")
      assert.strictEqual((yield* refusal("latest")).message, "\"latest\" is not an API version (YYYY-MM-DD); stable versions: 2026-02-18.")
      assert.strictEqual((yield* Effect.flip(admin.pinVersion("ptn_UNKNOWN", "2026-02-18"))).reason, "unknown_owner")
      assert.deepStrictEqual(Option.map(yield* store.findPartner(partner.id), (p) => p.pinnedVersion), Option.some("2026-02-18"))
    }))
})
