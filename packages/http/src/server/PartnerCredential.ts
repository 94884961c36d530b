import {
  CredentialStore,
  isPinnableVersion,
  type KeyWithPartner,
  kindOfSecret,
  latestStableVersion,
  type Mode,
  type Partner,
  SecretDigest
} from "@paygate/domain"
import { InvalidApiKey, NotSandboxApiKey } from "../api/HttpErrors.ts"
import { Effect, Option } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { Authenticated } from "./Pipeline.ts"

/**
 * What presented secrets are looked up with: the credential store and the digest keys are stored
 * by. Captured when the middleware is built and passed in: providing them per request would copy
 * the context.
 */
export interface KeyLookup {
  readonly store: CredentialStore["Service"]
  readonly digest: SecretDigest["Service"]
}

/** The {@link KeyLookup} of the services in context. */
export const keyLookup = Effect.gen(function*() {
  return { store: yield* CredentialStore, digest: yield* SecretDigest } satisfies KeyLookup
})

/**
 * Looks a presented secret up by its digest (with the key's partner, in one read, which the store
 * may answer from its cache) and checks the digests match in constant time.
 */
export const findKey = ({ digest: secretDigest, store }: KeyLookup, secret: string) => {
  const digest = secretDigest.digest(secret)
  return Effect.map(store.findKeyWithPartner(digest), (found) => {
    if (Option.isNone(found) || found.value.key.revoked) return undefined
    return timingSafeEqual(Buffer.from(found.value.key.secretSha256, "hex"), Buffer.from(digest, "hex")) ? found.value : undefined
  })
}

/**
 * Authenticates a partner secret key: looked up by its SHA-256 (the only form stored), the
 * digests compared in constant time. Unknown, revoked and wallet keys are refused alike
 * (`invalid_api_key`), a wallet key without a lookup: a response that told a valid wallet key from
 * a made-up one would let anyone test guesses here. Combinators, not generators: this runs on
 * every partner and merchant API request.
 */
export const authenticatePartnerKey = (
  keys: KeyLookup,
  apiKey: string,
  environment: "production" | "staging"
): Effect.Effect<PartnerAuthentication, InvalidApiKey | NotSandboxApiKey> => {
  if (kindOfSecret(apiKey) !== "partner") return Effect.fail(invalidKey())
  return Effect.flatMap(findKey(keys, apiKey), (found) => (found === undefined ? Effect.fail(invalidKey()) : partnerAuthentication(found, environment)))
}

/** A partner key's caller: what the pipeline needs ({@link Authenticated}, with the key's mode) and the partner. */
export interface PartnerAuthentication {
  readonly auth: Authenticated & { readonly mode: Mode }
  readonly partner: Partner
}

// Built only when refused: an error's construction validates its fields and captures a stack.
const invalidKey = () => new InvalidApiKey({ message: "The API key is not valid." })

/**
 * What a found, unrevoked partner key establishes: the caller's partner, key, mode and pinned
 * version, after the deployment's rule on live keys. A dashboard session acts through this too.
 */
export const partnerAuthentication = (
  found: KeyWithPartner,
  environment: "production" | "staging"
): Effect.Effect<PartnerAuthentication, InvalidApiKey | NotSandboxApiKey> => {
  const { key, partner } = found
  if (key.kind !== "partner" || key.partnerId === null) return Effect.fail(invalidKey())
  if (environment === "staging" && key.mode === "live") {
    return Effect.fail(new NotSandboxApiKey({ message: "This deployment accepts sandbox keys (sk_test_…) only." }))
  }
  if (partner === null) return Effect.fail(invalidKey())
  const auth: Authenticated & { readonly mode: typeof key.mode } = {
    partnerId: partner.id,
    keyId: key.id,
    pinnedVersion: isPinnableVersion(partner.pinnedVersion) ? partner.pinnedVersion : latestStableVersion,
    mode: key.mode
  }
  return Effect.succeed({ auth, partner })
}
