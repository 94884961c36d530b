import { ApiKeyAdmin, type AppId, type Mode } from "@paygate/domain"
import { Context, Effect, Layer, Option } from "effect"

/** Name of the apps the hosted portal authenticates as; found by it on later starts. */
export const portalAppName = "Hosted checkout"

/**
 * The hosted checkout portal's built-in public `App-Id`s (API rules §2), one per mode: the page of a
 * payment carries the one of the payment's mode, and the buyer's browser sends it with a random
 * `Client-Id`. The apps are created on the first start and found by name afterwards (the oldest
 * wins, so every instance converges on the same one); one revoked by the operator
 * (`npm run admin -- app revoke`) is replaced at the next start. They have no usable wallet key:
 * the key `createApp` issues is revoked at once.
 */
export class PortalApps extends Context.Service<PortalApps, {
  readonly appIdFor: (mode: Mode) => AppId
}>()("@paygate/http/portal/PortalApps") {
  static readonly layer: Layer.Layer<PortalApps, never, ApiKeyAdmin> = Layer.effect(
    PortalApps,
    Effect.gen(function*() {
      const admin = yield* ApiKeyAdmin
      const ensure = Effect.fnUntraced(function*(mode: Mode) {
        const found = yield* admin.findApp(portalAppName, mode)
        if (Option.isSome(found)) return found.value
        const created = yield* admin.createApp({ name: portalAppName, mode })
        yield* admin.revokeKey(created.keyId)
        return created.appId
      }, Effect.orDie)
      const live = yield* ensure("live")
      const sandbox = yield* ensure("sandbox")
      return PortalApps.of({ appIdFor: (mode) => (mode === "live" ? live : sandbox) })
    })
  )
}
