import { Effect, Option, Result, Schema } from "effect"
import { Mac } from "effect/crypto"
import { Base64Url } from "effect/encoding"

/** Issues and reads tamper-proof tokens carrying claims of one kind. */
export interface Sealer<A> {
  /** `<prefix>.<claims as base64url JSON>.<HMAC-SHA256 tag>`. */
  readonly seal: (claims: A) => Effect.Effect<string>
  /** The claims of a token this sealer issued; none for a tampered, truncated or foreign one (the tag is checked in constant time). */
  readonly open: (token: string) => Effect.Effect<Option.Option<A>>
}

// Unpadded only, as issued: a token with padding or another alphabet's characters is not one of ours.
const fromBase64Url = (text: string): Uint8Array | undefined =>
  /^[A-Za-z0-9_-]+$/.test(text) ? Result.getOrUndefined(Base64Url.decode(text)) : undefined

/**
 * A sealer of `schema`'s claims, keyed by `secret` (at least 32 bytes). The prefix is inside the
 * tagged bytes, so tokens of one kind are never read as another's under a shared secret.
 */
export const makeSealer = <A>(
  prefix: string,
  schema: Schema.Codec<A, unknown>,
  secret: Uint8Array
): Effect.Effect<Sealer<A>, never, Mac.Mac> =>
  Effect.gen(function*() {
    if (secret.length < 32) return yield* Effect.die(new RangeError("a sealing secret must have at least 32 bytes"))
    const mac = yield* Mac.Mac
    const key = yield* Effect.orDie(Mac.key(Mac.hmacSha256, secret))
    const json = Schema.fromJsonString(schema)
    const encode = Schema.encodeSync(json)
    const decode = Schema.decodeUnknownOption(json)
    const encoder = new TextEncoder()
    return {
      seal: (claims) =>
        Effect.gen(function*() {
          const body = Base64Url.encode(encoder.encode(encode(claims)))
          const tag = yield* Effect.orDie(mac.sign(key, encoder.encode(`${prefix}.${body}`)))
          return `${prefix}.${body}.${Base64Url.encode(tag)}`
        }),
      open: (token) =>
        Effect.gen(function*() {
          const [version, body, tagText, ...rest] = token.split(".")
          const tag = tagText === undefined ? undefined : fromBase64Url(tagText)
          if (version !== prefix || body === undefined || tag === undefined || rest.length > 0) return Option.none()
          const valid = yield* Effect.orDie(mac.verify(key, tag, encoder.encode(`${prefix}.${body}`)))
          const bytes = fromBase64Url(body)
          if (!valid || bytes === undefined) return Option.none()
          try {
            return decode(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
          } catch {
            return Option.none()
          }
        })
    }
  })
