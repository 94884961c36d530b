/**
 * Standard Webhooks signing (API rules §6): `webhook-signature: v1,<base64 HMAC-SHA256>` over
 * `id + "." + timestamp + "." + body`, keyed by the bytes of the secret's base64 part after
 * `whsec_`. Verifiable by the `standardwebhooks` library.
 *
 * @module
 */
import { Effect, Redacted, Result } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { Base64 } from "effect/encoding"

/** Prefix of a signing secret. */
export const secretPrefix = "whsec_"

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const generateSecret: Effect.Effect<Redacted.Redacted<string>, never, SecureRandom.SecureRandom> = Effect.gen(
  function*() {
    const random = yield* SecureRandom.SecureRandom
    return Redacted.make(`${secretPrefix}${Base64.encode(yield* random.randomBytes(32))}`)
  }
)

/** The key bytes of a secret (`whsec_` optional), or `undefined` when it is not base64. */
export const secretKeyBytes = (secret: string): Uint8Array | undefined => {
  const body = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret
  const decoded = Base64.decode(body)
  return Result.isSuccess(decoded) && decoded.success.length > 0 ? decoded.success : undefined
}

/** The Standard Webhooks headers of one delivery attempt. */
export interface SignedHeaders {
  readonly "webhook-id": string
  readonly "webhook-timestamp": string
  readonly "webhook-signature": string
}

/**
 * Signs `body` for sending as message `id` at `timestampSeconds` (Unix seconds, the attempt's
 * time: receivers refuse old timestamps). A secret that is not `whsec_` + base64 is a defect.
 */
export const sign = (
  secret: Redacted.Redacted<string>,
  id: string,
  timestampSeconds: number,
  body: string
): Effect.Effect<SignedHeaders, never, Mac.Mac> =>
  Effect.gen(function*() {
    const bytes = secretKeyBytes(Redacted.value(secret))
    if (bytes === undefined) return yield* Effect.die(new Error("webhook secret is not whsec_ + base64"))
    const mac = yield* Mac.Mac
    const key = yield* Mac.key(Mac.hmacSha256, bytes)
    const tag = yield* mac.sign(key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`))
    return {
      "webhook-id": id,
      "webhook-timestamp": String(timestampSeconds),
      "webhook-signature": `v1,${Base64.encode(tag)}`
    }
  }).pipe(Effect.orDie)
