import { CredentialAdmin, hashSecret } from "@paygate/adapters"
import { CredentialStore, latestStableVersion } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"

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
})
