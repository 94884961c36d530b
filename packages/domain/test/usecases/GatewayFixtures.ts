import type { PayableAsset } from "../../src/ports/AssetCatalog.ts"

/** USDC on Base as a pull (EIP-3009) asset, for the gateway use case tests. */
export const usdcOnBase: PayableAsset = {
  assetId: "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  chainId: "eip155:8453",
  decimals: 6,
  symbol: "USDC",
  name: "USD Coin",
  iconUrl: null,
  networkName: "Base",
  networkIconUrl: null,
  kind: "pull",
  etaSeconds: 5,
  collectionAddress: "0x000000000000000000000000000000000000c011"
}
