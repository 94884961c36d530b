import { hashSecret } from "@paygate/adapters"
import { CredentialStore, InvalidApiKey, isPinnableVersion, latestStableVersion, NotSandboxApiKey } from "@paygate/domain"
import { Config, Effect, Option } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { Authenticated } from "./Pipeline.ts"

/** `ENVIRONMENT=staging` deployments refuse live keys (contract §3). */
export const Environment = Config.Literals(["production", "staging"], "ENVIRONMENT").pipe(Config.withDefault("production"))

const partnerKeyShape = /^sk_(live|test)_[A-Za-z0-9_-]{16,}$/

/**
 * Authenticates a partner secret key: looked up by its SHA-256 (the only form stored), the
 * digests compared in constant time, revoked and wallet keys refused alike.
 */
export const authenticatePartnerKey = Effect.fnUntraced(function*(apiKey: string, environment: "production" | "staging") {
  const invalid = new InvalidApiKey({ message: "The API key is not valid." })
  if (!partnerKeyShape.test(apiKey)) return yield* invalid
  const store = yield* CredentialStore
  const digest = hashSecret(apiKey)
  const found = yield* store.findKeyByHash(digest)
  if (Option.isNone(found)) return yield* invalid
  const key = found.value
  if (key.kind !== "partner" || key.revoked || key.partnerId === null) return yield* invalid
  if (!timingSafeEqual(Buffer.from(key.secretSha256, "hex"), Buffer.from(digest, "hex"))) return yield* invalid
  if (environment === "staging" && key.mode === "live") {
    return yield* new NotSandboxApiKey({ message: "This deployment accepts sandbox keys (sk_test_…) only." })
  }
  const partner = yield* store.findPartner(key.partnerId)
  if (Option.isNone(partner)) return yield* invalid
  const auth: Authenticated & { readonly mode: typeof key.mode } = {
    partnerId: partner.value.id,
    keyId: key.id,
    pinnedVersion: isPinnableVersion(partner.value.pinnedVersion) ? partner.value.pinnedVersion : latestStableVersion,
    mode: key.mode
  }
  return { auth, partner: partner.value }
})
