/**
 * USDT on the named networks where paygate takes it (see `NetworkPresets.ts`): Tether's USDT has no
 * EIP-3009, so it is pulled through Permit2 (`Permit2.ts`). Addresses and decimals as Tether and the
 * networks' explorers publish them:
 *
 * - Ethereum (eip155:1): `0xdAC17F958D2ee523a2206206994597C13D831ec7`, 6 decimals; its `approve`
 *   refuses to change a non-zero allowance to another non-zero one (the wallet approves 0 first);
 * - Polygon PoS (eip155:137): `0xc2132D05D31c914a87C6611C10748AEb04B58e8F`, 6 decimals.
 *
 * @module
 */
import type * as Configuration from "../Configuration.ts"

/** USDT's address (EIP-55) per named network that offers it. */
export const usdtAddresses: { readonly [N in Configuration.NetworkName]?: `0x${string}` } = {
  ethereum: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
  polygon: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"
}

// Tether's mark, drawn inline so that the checkout needs no other host for it.
const usdtIcon = "data:image/svg+xml;base64," +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1" fill="#26a17b"/></svg>')
    .toString("base64")

/** The USDT asset settings (JSON form) of a named network, if it offers USDT. */
export const usdtSettings = (
  network: Configuration.NetworkName,
  preset: { readonly chainNumber: number; readonly networkName: string },
  etaSeconds: number
) => {
  const address = usdtAddresses[network]
  return address === undefined ? [] : [{
    assetId: `eip155:${preset.chainNumber}/erc20:${address}`,
    decimals: 6,
    symbol: "USDT",
    name: "Tether USD",
    iconUrl: usdtIcon,
    networkName: preset.networkName,
    etaSeconds,
    eip3009: false,
    permit2: true,
    pricing: { kind: "peg", currency: "USD" }
  }]
}
