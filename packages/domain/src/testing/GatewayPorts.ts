import { Effect, Layer, Option, Result } from "effect"
import type { Pricing } from "../quote/Quote.ts"
import type { Mode } from "../payment/Payment.ts"
import { AssetCatalog, type PayableAsset } from "../ports/AssetCatalog.ts"
import { NetworkModes } from "../ports/NetworkModes.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { QuoteStore, type StoredQuote } from "../ports/QuoteStore.ts"
import { WalletActions } from "../ports/WalletActions.ts"

/** A catalog of fixed assets, whose chains serve payments of `mode` (`NetworkModes`); by default sandbox ones. */
export const catalogOf = (assets: ReadonlyArray<PayableAsset>, mode: Mode = "sandbox"): Layer.Layer<AssetCatalog> =>
  Layer.succeed(AssetCatalog, AssetCatalog.of({
    all: assets,
    assetsOn: (chainId) => assets.filter((a) => a.chainId === chainId),
    asset: (assetId) => assets.find((a) => a.assetId === assetId)
  })).pipe(Layer.merge(Layer.succeed(NetworkModes, {
    modeOf: (chainId: string) => (assets.some((a) => a.chainId === chainId) ? mode : undefined)
  })))

/** Prices from a table keyed `CURRENCY asset`; missing pairs cannot be quoted. */
export const pricesOf = (table: Readonly<Record<string, Pricing>>): Layer.Layer<PriceOracle> =>
  Layer.succeed(PriceOracle, PriceOracle.of({
    pricing: (currency, asset) => Effect.succeed(Option.fromNullishOr(table[`${currency} ${asset}`]))
  }))

/** In-memory quotes, latest per (payment, account, asset) in `quotes`, every one in saving order. */
export const layerMemoryQuotes = (quotes: Map<string, StoredQuote> = new Map()): Layer.Layer<QuoteStore> => {
  const saved: Array<StoredQuote> = []
  const keyOf = (paymentId: string, account: string, asset: string) => `${paymentId} ${account} ${asset}`
  return Layer.succeed(QuoteStore, QuoteStore.of({
    latest: (paymentId, account, asset) => Effect.sync(() => Option.fromNullishOr(quotes.get(keyOf(paymentId, account, asset)))),
    newest: (paymentId, asset) =>
      Effect.sync(() => Option.fromNullishOr(saved.findLast(({ claims }) => claims.paymentId === paymentId && claims.asset === asset))),
    history: (paymentId, account, asset) =>
      Effect.sync(() => saved.filter(({ claims }) => keyOf(claims.paymentId, claims.account, claims.asset) === keyOf(paymentId, account, asset))),
    save: (quote) =>
      Effect.sync(() => {
        saved.push(quote)
        quotes.set(keyOf(quote.claims.paymentId, quote.claims.account, quote.claims.asset), quote)
      }),
    prune: (paymentId, expiredBefore) =>
      Effect.sync(() => {
        const replaced = (quote: StoredQuote) =>
          quotes.get(keyOf(quote.claims.paymentId, quote.claims.account, quote.claims.asset)) !== quote &&
          quote.claims.kind !== "deposit" && quote.claims.expiresAt !== null && quote.claims.expiresAt < expiredBefore
        const kept = saved.filter((quote) => quote.claims.paymentId !== paymentId || !replaced(quote))
        saved.splice(0, saved.length, ...kept)
        return kept.filter((quote) => quote.claims.paymentId === paymentId).length
      }),
    byNonce: (nonce) =>
      Effect.sync(() => Option.fromNullishOr([...quotes.values()].find((quote) => quote.claims.nonce.toLowerCase() === nonce)))
  }))
}

/** Wallet actions that name the option and its deadline in a `build` action, for tests; no push transfer is built. */
export const recordedActions: Layer.Layer<WalletActions> = Layer.succeed(WalletActions, WalletActions.of({
  actionsFor: (claims, optionId, validBefore) =>
    Effect.succeed([{ type: "build", data: { data: JSON.stringify({ optionId, kind: claims.kind, validBefore }) } }]),
  buildData: (claims) => claims.nonce,
  pushTransfer: () => Result.fail("no transfer is built in tests")
}))
