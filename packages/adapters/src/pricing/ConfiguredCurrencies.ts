/**
 * The domain's `PayableCurrencies` from the chain configuration, without any RPC call: each token's
 * peg currency and its exchange-rate feeds' currencies, or its price feed's currency. With no token
 * configured there is no limit (the start-up banner already says payments have no options). Per
 * mode: a sandbox payment only in what tokens on test networks are priced in, a live one only in
 * what tokens on real networks are.
 *
 * @module
 */
import { type Mode, PayableCurrencies, type PayableCurrenciesShape } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { type AssetSettings, assetMode, ChainsConfig } from "../chain/ChainConfig.ts"

/** The currencies one token can be priced in. */
export const currenciesOf = (asset: AssetSettings): ReadonlyArray<string> =>
  asset.pricing.kind === "peg"
    ? [asset.pricing.currency, ...(asset.pricing.fxFeeds ?? []).map((feed) => feed.currency)]
    : [asset.pricing.currency]

/** The currencies of every configured token; see the module documentation. */
export const make: Effect.Effect<PayableCurrenciesShape, never, ChainsConfig> = Effect.map(ChainsConfig, (chains) => {
  const assets = [...chains.assets.values()]
  const of = (mode: Mode) => new Set(assets.filter((asset) => assetMode(chains, asset) === mode).flatMap(currenciesOf))
  return { currencies: assets.length === 0 ? undefined : { sandbox: of("sandbox"), live: of("live") } }
})

/** {@link make} as the `PayableCurrencies` of the layer's context. */
export const layer = Layer.effect(PayableCurrencies, make)
