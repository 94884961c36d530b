import { Context, Effect, Layer, Option, Schema } from "effect"
import { makeSealer } from "../ids/SealedClaims.ts"

/**
 * An offer of terms to a buyer: what the wallet signs for, sealed so the service takes back only
 * terms it made (its amount, receiver and start included). `amountPerPeriod` is base units as a
 * decimal string; times are Unix seconds. Taken until `expiresAt` (a fiat plan's price holds that long).
 */
export const OfferClaims = Schema.Struct({
  planId: Schema.String,
  payer: Schema.String,
  receiver: Schema.String,
  asset: Schema.String,
  amountPerPeriod: Schema.String,
  periodSeconds: Schema.Int,
  start: Schema.Int,
  periods: Schema.NullOr(Schema.Int),
  salt: Schema.String,
  sigDeadline: Schema.Int,
  expiresAt: Schema.Int,
  /** The payer's subscription these terms take over from `start` (a period boundary of it), if any. */
  replaces: Schema.NullOr(Schema.String)
})
/** The claims of an offer. */
export type OfferClaims = typeof OfferClaims.Type

const ManageClaims = Schema.Struct({ subscriptionId: Schema.String })

/**
 * The tokens of subscriptions: sealed offers, and the payer's link to see and cancel a subscription
 * (in every receipt; whoever holds it can cancel, as with an unsubscribe link). Each kind is sealed
 * apart, so neither is ever read as the other or as an option id under the shared secret.
 */
export class SubscriptionTokens extends Context.Service<SubscriptionTokens, {
  readonly sealOffer: (claims: OfferClaims) => Effect.Effect<string>
  readonly openOffer: (token: string) => Effect.Effect<Option.Option<OfferClaims>>
  readonly manageToken: (subscriptionId: string) => Effect.Effect<string>
  /** Whether `token` is the payer's link token of `subscriptionId`. */
  readonly canManage: (subscriptionId: string, token: string) => Effect.Effect<boolean>
}>()("@paygate/domain/SubscriptionTokens") {
  /** Tokens sealed with `secret` (at least 32 bytes); the `Mac` service computes the tags. */
  static readonly layer = (secret: Uint8Array) =>
    Layer.effect(
      SubscriptionTokens,
      Effect.gen(function*() {
        const offers = yield* makeSealer("sof1", OfferClaims, secret)
        const links = yield* makeSealer("sub1", ManageClaims, secret)
        return SubscriptionTokens.of({
          sealOffer: offers.seal,
          openOffer: offers.open,
          manageToken: (subscriptionId) => links.seal({ subscriptionId }),
          canManage: (subscriptionId, token) =>
            Effect.map(links.open(token), (claims) => Option.isSome(claims) && claims.value.subscriptionId === subscriptionId)
        })
      })
    )
}
