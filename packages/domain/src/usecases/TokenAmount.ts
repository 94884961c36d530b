import type { PayableAsset } from "../ports/AssetCatalog.ts"
import type { Amount, AmountDisplay } from "../money/Amount.ts"

/** What a wallet shows for `asset`. */
export const tokenDisplay = (asset: PayableAsset): AmountDisplay => ({
  assetName: asset.name,
  assetSymbol: asset.symbol,
  decimals: asset.decimals,
  iconUrl: asset.iconUrl,
  networkIconUrl: asset.networkIconUrl,
  networkName: asset.networkName
})

/** The wire `Amount` of `value` base units of `asset`, with what a wallet shows for it. */
export const tokenAmount = (asset: PayableAsset, value: string): Amount => ({
  unit: `caip19/${asset.assetId}`,
  value,
  display: tokenDisplay(asset)
})
