import { Context, Effect, Layer, Schema } from "effect"
import { Mac } from "effect/crypto"
import { InvalidParams } from "../errors/DomainErrors.ts"

/** What an option id carries: the quote the buyer may commit to, for one payment and account. */
export const OptionClaims = Schema.Struct({
  paymentId: Schema.String,
  /** CAIP-10 account that pays. */
  account: Schema.String,
  /** CAIP-19 asset paid in. */
  asset: Schema.String,
  /** Token base units, decimal string. */
  value: Schema.String,
  /** Unix seconds after which confirming is `quote_expired`; `null` for options with no rate. */
  expiresAt: Schema.NullOr(Schema.Int),
  /**
   * `pull` (EIP-3009 authorization), `push` (buyer-sent transfer with a reference) or `deposit` (a
   * plain transfer to the payment's deposit address `account`: nothing to fetch or confirm).
   */
  kind: Schema.Literals(["pull", "push", "deposit"]),
  /** 0x + random bytes: the 32-byte EIP-3009 nonce (pull), the 16-byte transfer reference (push), 16 unused bytes (deposit). */
  nonce: Schema.String,
  /** Unix seconds. */
  quotedAt: Schema.Int
})
/** The claims of an option id. */
export type OptionClaims = typeof OptionClaims.Type

const ClaimsJson = Schema.fromJsonString(OptionClaims)
const encodeClaims = Schema.encodeSync(ClaimsJson)
const decodeClaims = Schema.decodeUnknownEffect(ClaimsJson)
const prefix = "opt1"

const toBase64Url = (bytes: Uint8Array) => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

const foreign = () => new InvalidParams({ message: "The option id is not one this service issued for this payment." })

/**
 * Option ids (API rules §10): opaque to wallets, tamper-proof (HMAC-SHA256 over the encoded claims),
 * verified in constant time. A tampered, truncated or foreign id is `invalid_params`.
 */
export class OptionIds extends Context.Service<OptionIds, {
  readonly issue: (claims: OptionClaims) => Effect.Effect<string>
  readonly read: (optionId: string) => Effect.Effect<OptionClaims, InvalidParams>
}>()("@paygate/domain/OptionIds") {
  /** Option ids signed with `secret` (at least 32 bytes); the `Mac` service computes the tags. */
  static readonly layer = (secret: Uint8Array) =>
    Layer.effect(
      OptionIds,
      Effect.gen(function*() {
        if (secret.length < 32) return yield* Effect.die(new RangeError("the option id secret must have at least 32 bytes"))
        const mac = yield* Mac.Mac
        const key = yield* Effect.orDie(Mac.key(Mac.hmacSha256, secret))
        const encoder = new TextEncoder()
        return OptionIds.of({
          issue: (claims) =>
            Effect.gen(function*() {
              const body = toBase64Url(encoder.encode(encodeClaims(claims)))
              const tag = yield* Effect.orDie(mac.sign(key, encoder.encode(`${prefix}.${body}`)))
              return `${prefix}.${body}.${toBase64Url(tag)}`
            }),
          read: (optionId) =>
            Effect.gen(function*() {
              const [version, body, tagText, ...rest] = optionId.split(".")
              const tag = tagText === undefined ? undefined : fromBase64Url(tagText)
              if (version !== prefix || body === undefined || tag === undefined || rest.length > 0) return yield* foreign()
              const valid = yield* Effect.orDie(mac.verify(key, tag, encoder.encode(`${prefix}.${body}`)))
              const json = fromBase64Url(body)
              if (!valid || json === undefined) return yield* foreign()
              return yield* decodeClaims(new TextDecoder().decode(json)).pipe(Effect.mapError(foreign))
            })
        })
      })
    )
}
