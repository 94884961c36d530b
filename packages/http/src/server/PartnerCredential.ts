import { Configuration, hashSecret, kindOfSecret } from "@paygate/adapters"
import { type CredentialStore, Forbidden, isPinnableVersion, type KeyWithPartner, latestStableVersion } from "@paygate/domain"
import { InvalidApiKey, NotSandboxApiKey } from "../api/HttpErrors.ts"
import { Effect, Option } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { Authenticated } from "./Pipeline.ts"

/** `ENVIRONMENT=staging` deployments refuse live keys (contract §3). */
export const Environment = Configuration.environment

/**
 * Looks a presented secret up by its digest (with the key's partner, in one read, which the store
 * may answer from its cache) and checks the digests match in constant time. The store is passed
 * in (captured when the middleware is built): providing it per request would copy the context.
 */
export const findKey = Effect.fnUntraced(function*(store: CredentialStore["Service"], secret: string) {
  const digest = hashSecret(secret)
  const found = yield* store.findKeyWithPartner(digest)
  if (Option.isNone(found) || found.value.key.revoked) return undefined
  return timingSafeEqual(Buffer.from(found.value.key.secretSha256, "hex"), Buffer.from(digest, "hex")) ? found.value : undefined
})

/**
 * Authenticates a partner secret key: looked up by its SHA-256 (the only form stored), the
 * digests compared in constant time, revoked and wallet keys refused alike.
 */
export const authenticatePartnerKey = Effect.fnUntraced(function*(
  store: CredentialStore["Service"],
  apiKey: string,
  environment: "production" | "staging"
) {
  const kind = kindOfSecret(apiKey)
  if (kind === "wallet" && (yield* findKey(store, apiKey)) !== undefined) {
    return yield* new Forbidden({ message: "This is a wallet key; this API needs a partner secret key (sk_…)." })
  }
  if (kind !== "partner") return yield* invalidKey()
  const found = yield* findKey(store, apiKey)
  if (found === undefined) return yield* invalidKey()
  return yield* partnerAuthentication(found, environment)
})

// Built only when refused: an error's construction validates its fields and captures a stack.
const invalidKey = () => new InvalidApiKey({ message: "The API key is not valid." })

/**
 * What a found, unrevoked partner key establishes: the caller's partner, key, mode and pinned
 * version, after the deployment's rule on live keys. A dashboard session acts through this too.
 */
export const partnerAuthentication = Effect.fnUntraced(function*(found: KeyWithPartner, environment: "production" | "staging") {
  if (found.key.kind !== "partner" || found.key.partnerId === null) return yield* invalidKey()
  const { key, partner } = found
  if (environment === "staging" && key.mode === "live") {
    return yield* new NotSandboxApiKey({ message: "This deployment accepts sandbox keys (sk_test_…) only." })
  }
  if (partner === null) return yield* invalidKey()
  const auth: Authenticated & { readonly mode: typeof key.mode } = {
    partnerId: partner.id,
    keyId: key.id,
    pinnedVersion: isPinnableVersion(partner.pinnedVersion) ? partner.pinnedVersion : latestStableVersion,
    mode: key.mode
  }
  return { auth, partner }
})
