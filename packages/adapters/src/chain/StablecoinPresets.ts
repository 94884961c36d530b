/**
 * Stablecoins besides USDC on the named networks (see `NetworkPresets`):
 *
 * - EURC, Circle's euro coin, on Ethereum, Base and their Sepolia testnets: 6 decimals, pegged to
 *   EUR, a FiatToken like USDC (EIP-3009; EIP-712 name "EURC", version "2", read from the token).
 *   Addresses from Circle's "EURC Contract Addresses" page.
 * - USDT0 on Arbitrum One (the address Arbitrum's USDT was upgraded in place at): 6 decimals,
 *   pegged to USD, with EIP-3009 authorizations (EIP-712 domain read from the token).
 *
 * A stablecoin is offered only for payments in its own currency: a EUR payment is payable in EURC at
 * 1:1, never in a USD coin (no EUR / USD feed is configured for a preset), and the reverse.
 *
 * @module
 */
import type * as Configuration from "../Configuration.ts"

/** A stablecoin of a network. */
export interface StablecoinPreset {
  readonly address: `0x${string}`
  readonly symbol: string
  readonly name: string
  readonly currency: "EUR" | "USD"
}

const eurc = (address: `0x${string}`): StablecoinPreset => ({ address, symbol: "EURC", name: "EURC", currency: "EUR" })

/**
 * Per named network, its stablecoins besides USDC. EURC's addresses, mainnets and Sepolia testnets
 * alike, are those of https://developers.circle.com/stablecoins/eurc-contract-addresses.
 */
export const stablecoinPresets: { readonly [N in Configuration.NetworkName]?: ReadonlyArray<StablecoinPreset> } = {
  ethereum: [eurc("0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c")],
  "ethereum-sepolia": [eurc("0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4")],
  base: [eurc("0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42")],
  "base-sepolia": [eurc("0x808456652fdb597867f38412077A9182bf77359F")],
  arbitrum: [{ address: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", symbol: "USDT0", name: "USD₮0", currency: "USD" }]
}

const icons: Record<StablecoinPreset["currency"], string> = {
  EUR: "#2f6fdb",
  USD: "#26a17b"
}

const mark = (coin: StablecoinPreset) =>
  "data:image/svg+xml;base64," +
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="${icons[coin.currency]}"/>` +
      `<text x="16" y="22" font-size="18" text-anchor="middle" fill="#fff" font-family="sans-serif">${coin.currency === "EUR" ? "€" : "₮"}</text></svg>`
  ).toString("base64")

/** The asset settings (JSON form, see `ChainConfig`) of `network`'s stablecoins besides USDC. */
export const stablecoinAssetSettings = (
  network: Configuration.NetworkName,
  chainNumber: number,
  networkName: string,
  etaSeconds: number
) =>
  (stablecoinPresets[network] ?? []).map((coin) => ({
    assetId: `eip155:${chainNumber}/erc20:${coin.address}`,
    decimals: 6,
    symbol: coin.symbol,
    name: coin.name,
    iconUrl: mark(coin),
    networkName,
    etaSeconds,
    eip3009: true,
    pricing: { kind: "peg", currency: coin.currency }
  }))
