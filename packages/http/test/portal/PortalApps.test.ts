import { CredentialAdmin, Database, Migrations } from "@paygate/adapters"
import { IdGenerator } from "@paygate/domain"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { PortalApps } from "../../src/portal/PortalApps.ts"

const database = CredentialAdmin.layer.pipe(
  Layer.provideMerge(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(Database.layerMemory())
)

// What a start of the service does: find (or create) the portal's apps.
const portalApp = Effect.gen(function*() {
  return (yield* PortalApps).appIdFor("sandbox")
}).pipe(Effect.provide(PortalApps.layer))

layer(database, { excludeTestServices: true })("PortalApps", (it) => {
  it.effect("finds its apps again on the next start, and replaces one the operator revoked", () =>
    Effect.gen(function*() {
      const first = yield* portalApp
      expect(yield* portalApp).toBe(first)
      expect(yield* (yield* CredentialAdmin).revokeApp(first)).toBe(true)
      const next = yield* portalApp
      expect(next).not.toBe(first)
      const apps = yield* (yield* CredentialAdmin).listApps
      expect(apps.filter((app) => app.mode === "sandbox").map((app) => [app.appId, app.revoked])).toStrictEqual([[first, true], [next, false]])
    }))
})
