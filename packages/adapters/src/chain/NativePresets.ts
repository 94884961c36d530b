/**
 * The native asset of each named network (see `NetworkPresets`): ETH on Ethereum, Base, OP Mainnet
 * and Arbitrum One and their testnets, POL on Polygon, each priced in USD by the network's Chainlink
 * AggregatorV3 feed (ETH / USD, POL / USD; addresses from Chainlink's published feed lists). A
 * network without a feed here (OP Sepolia, Polygon Amoy) offers no native option: without a price
 * the asset is never quoted rather than quoted wrong.
 *
 * @module
 */
import type * as Configuration from "../Configuration.ts"

/** A network's native asset: SLIP-44 coin type, names, and its USD feed. */
export interface NativePreset {
  readonly coinType: number
  readonly symbol: string
  readonly name: string
  /** AggregatorV3 answering one unit in USD on that network. */
  readonly usdFeed: `0x${string}`
}

const ether = (usdFeed: `0x${string}`): NativePreset => ({ coinType: 60, symbol: "ETH", name: "Ether", usdFeed })

/**
 * Per named network, its native asset when it can be priced. Each feed is the "ETH / USD" (or
 * "POL / USD") proxy of Chainlink's list, https://docs.chain.link/data-feeds/price-feeds/addresses
 * (its network selector: Ethereum, Base, OP, Arbitrum, Polygon, each with its testnets).
 */
export const nativePresets: { readonly [N in Configuration.NetworkName]?: NativePreset } = {
  ethereum: ether("0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419"),
  "ethereum-sepolia": ether("0x694AA1769357215DE4FAC081bf1f309aDC325306"),
  base: ether("0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70"),
  "base-sepolia": ether("0x4aDC67696bA383F43DD60A9e78F2C97Fbbfc7cb1"),
  // https://docs.chain.link/data-feeds/price-feeds/addresses?network=optimism
  optimism: ether("0x13e3Ee699D1909E989722E753853AE30b17e08c5"),
  arbitrum: ether("0x639Fe6ab55C921f74e7fac1ee960C0B6293ba612"),
  // https://docs.chain.link/data-feeds/price-feeds/addresses?network=arbitrum&page=1 (Arbitrum Sepolia)
  "arbitrum-sepolia": ether("0xd30e2101a97dcbAeBCBC04F14C3f624E67A35165"),
  polygon: { coinType: 966, symbol: "POL", name: "POL", usdFeed: "0xAB594600376Ec9fD91F8e885dADF0CE036862dE0" }
}

// The marks, drawn inline so that the checkout needs no other host for them.
const mark = (fill: string, letter: string) =>
  "data:image/svg+xml;base64," +
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="${fill}"/>` +
      `<text x="16" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">${letter}</text></svg>`
  ).toString("base64")

/** The asset settings (JSON form, see `ChainConfig`) of `network`'s native asset; none without a feed. */
export const nativeAssetSettings = (
  network: Configuration.NetworkName,
  chainNumber: number,
  networkName: string,
  etaSeconds: number
) => {
  const native = nativePresets[network]
  if (native === undefined) return []
  return [{
    assetId: `eip155:${chainNumber}/slip44:${native.coinType}`,
    decimals: 18,
    symbol: native.symbol,
    name: native.name,
    iconUrl: mark(native.symbol === "POL" ? "#6c00f6" : "#627eea", native.symbol === "POL" ? "P" : "Ξ"),
    networkName,
    etaSeconds,
    eip3009: false,
    pricing: { kind: "priceFeed", address: native.usdFeed, currency: "USD" }
  }]
}
