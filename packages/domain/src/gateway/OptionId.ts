import { Context, Effect, Layer, Option, Schema } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"
import { EscrowTerms } from "../hold/Hold.ts"
import { makeSealer } from "../ids/SealedClaims.ts"

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
  quotedAt: Schema.Int,
  /** A held payment's escrow terms, fixed with the quote (`nonce` is their salt); absent otherwise. */
  escrow: Schema.optionalKey(Schema.Struct(EscrowTerms.fields))
})
/** The claims of an option id. */
export type OptionClaims = typeof OptionClaims.Type

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
      Effect.map(makeSealer("opt1", OptionClaims, secret), (sealer) =>
        OptionIds.of({
          issue: sealer.seal,
          read: (optionId) => Effect.flatMap(sealer.open(optionId), Option.match({ onNone: () => Effect.fail(foreign()), onSome: Effect.succeed }))
        }))
    )
}
