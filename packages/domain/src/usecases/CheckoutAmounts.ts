import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Payment } from "../payment/Payment.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { quotePayment } from "../quote/Quote.ts"
import type { Amount } from "../money/Amount.ts"
import { makeEscrowTermsOf } from "./EscrowTermsOf.ts"
import { PaymentSettings } from "./PaymentSettings.ts"
import { tokenAmount } from "./TokenAmount.ts"

/** A payment's amount in one token as an option would price it now. */
export interface TokenEstimate {
  readonly amount: Amount
  /** `true` for a market rate (it may move until the buyer's option is quoted); `false` for a pegged token. */
  readonly floating: boolean
}

/**
 * The token amounts the hosted checkout shows: before a wallet is connected, what the buyer would
 * pay in each token of the given networks (priced as the options operation prices, rounded up,
 * but nothing is stored or promised: the option the buyer pays is quoted then; a pair the oracle
 * cannot price, or a price that cannot be read, is left out); once paid, the token amount paid.
 */
export class CheckoutAmounts extends Context.Service<CheckoutAmounts, {
  readonly estimate: (payment: Payment, chainIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<TokenEstimate>>
  /** A succeeded payment's token amount (raw base units of the asset id when the token is no longer configured). */
  readonly paidWith: (payment: Payment) => Amount | null
}>()("@paygate/domain/CheckoutAmounts") {
  /** Over the catalog and price oracle in context. */
  static readonly layer = Layer.effect(
    CheckoutAmounts,
    Effect.gen(function*() {
      const oracle = yield* PriceOracle
      const catalog = yield* AssetCatalog
      const { quoteTtlSeconds } = yield* PaymentSettings
      const escrowTerms = yield* makeEscrowTermsOf
      const estimate = (payment: Payment, chainIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          const estimates: Array<TokenEstimate> = []
          for (const asset of chainIds.flatMap((chainId) => catalog.assetsOn(chainId))) {
            // A held payment is paid only in tokens the escrow can hold, for the merchant's destination.
            if (Option.isNone(yield* escrowTerms(payment, asset))) continue
            const pricing = yield* oracle.pricing(payment.currency, asset.assetId).pipe(
              Effect.catchCause(() => Effect.succeed(Option.none()))
            )
            if (Option.isNone(pricing)) continue
            const priced = quotePayment(payment, asset.decimals, pricing.value, now, quoteTtlSeconds)
            estimates.push({ amount: tokenAmount(asset, priced.tokenAmount.toString()), floating: priced.expiresAt !== null })
          }
          return estimates
        })
      const paidWith = (payment: Payment): Amount | null => {
        const c = payment.commitment
        if (payment.status !== "succeeded" || c === null) return null
        const asset = catalog.asset(c.asset)
        const value = c.tokenAmount.toString()
        return asset !== undefined ? tokenAmount(asset, value) : {
          unit: `caip19/${c.asset}`,
          value,
          display: { assetName: c.asset, assetSymbol: "", decimals: 0, iconUrl: null, networkIconUrl: null, networkName: null }
        }
      }
      return CheckoutAmounts.of({ estimate, paidWith })
    })
  )
}
