/**
 * Pricing adapters: the domain's `PriceOracle` from the chain configuration (pegged stablecoins and
 * Chainlink-style AggregatorV3 feeds read with viem).
 *
 * @module
 */
export * as ConfiguredCurrencies from "./ConfiguredCurrencies.ts"
export * as ConfiguredPriceOracle from "./ConfiguredPriceOracle.ts"
export * as PriceFeed from "./PriceFeed.ts"
