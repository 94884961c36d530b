/**
 * The domain's `PriceOracle` port from the chain configuration (`pricing` of each asset):
 *
 * - `peg` to currency C: payments in C are `Peg` (one token per unit, quotes that never go stale);
 *   payments in another currency X only when `fxFeeds` lists X: the feed answers one X in C, so the
 *   rate is `answer / 10^decimals` tokens per X. Otherwise none.
 * - `priceFeed` in currency C: the feed answers one token in C, so payments in C are the exact
 *   `Rate` `10^decimals / answer` tokens per unit of C. Other currencies: none.
 *
 * A stale, incomplete or unreadable feed means no price (see `PriceFeed.ts`): the asset is not
 * offered until the feed answers again. Unknown assets have no price.
 *
 * @module
 */
import { Money, type Pricing, PriceOracle, traced } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import type { Address, PublicClient } from "viem"
import { ChainsConfig, lookupAsset, rpcEndpoints } from "../chain/ChainConfig.ts"
import { makeClient } from "../chain/RpcCall.ts"
import { defaultMaxAgeSeconds, type FeedAnswer, type FeedReader, makeReader } from "./PriceFeed.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  pricing: traced("PriceOracle.pricing")
}

const peg: Pricing = { _tag: "Peg" }

const rate = (numerator: bigint, denominator: bigint): Pricing => ({
  _tag: "Rate",
  rate: new Money.Rate({ numerator, denominator })
})

/** Whole tokens per one unit of the feed's quote currency, from a feed answering the token's price. */
export const tokenPriceToRate = (feed: FeedAnswer): Pricing => rate(10n ** BigInt(feed.decimals), feed.answer)

/** Whole tokens per one unit of a currency, from a feed answering that currency in the token's peg. */
export const fxToRate = (feed: FeedAnswer): Pricing => rate(feed.answer, 10n ** BigInt(feed.decimals))

/** Builds the oracle over the configured chains, one RPC client per chain. */
export const make: Effect.Effect<PriceOracle["Service"], never, ChainsConfig> = Effect.gen(function*() {
  const chains = yield* ChainsConfig
  const clients = new Map<string, PublicClient>(chains.settings.chains.map((chain) => [chain.chainId, makeClient(rpcEndpoints(chain))]))
  const readers = new Map<string, FeedReader>()
  const reader = (chainId: string, address: Address): FeedReader | undefined => {
    const key = `${chainId} ${address.toLowerCase()}`
    const cached = readers.get(key)
    if (cached !== undefined) return cached
    const client = clients.get(chainId)
    if (client === undefined) return undefined
    const made = makeReader(client, chainId, address)
    readers.set(key, made)
    return made
  }
  const fromFeed = (chainId: string, address: Address, maxAge: number | undefined, toPricing: (f: FeedAnswer) => Pricing) => {
    const feed = reader(chainId, address)
    if (feed === undefined) return Effect.succeed(Option.none<Pricing>())
    return Effect.map(feed.latest(maxAge ?? defaultMaxAgeSeconds), Option.map(toPricing))
  }

  const pricing = (currency: string, assetId: string): Effect.Effect<Option.Option<Pricing>> => {
    const found = lookupAsset(chains, assetId)
    if (found === undefined) return Effect.succeed(Option.none())
    const { asset, chain } = found
    const configured = asset.pricing
    if (configured.kind === "peg") {
      if (configured.currency === currency) return Effect.succeed(Option.some(peg))
      const fx = configured.fxFeeds?.find((entry) => entry.currency === currency)
      if (fx === undefined) return Effect.succeed(Option.none())
      return fromFeed(chain.chainId, fx.address, fx.maxAgeSeconds, fxToRate)
    }
    if (configured.currency !== currency) return Effect.succeed(Option.none())
    return fromFeed(chain.chainId, configured.address, configured.maxAgeSeconds, tokenPriceToRate)
  }

  return PriceOracle.of({ pricing: (currency, asset) => pricing(currency, asset).pipe(spans.pricing) })
})

/** Prices of the configured assets. */
export const layer: Layer.Layer<PriceOracle, never, ChainsConfig> = Layer.effect(PriceOracle, make)
