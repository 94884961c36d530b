import type { PayableAsset } from "../ports/AssetCatalog.ts"

/**
 * Why no payout may ever go to an account: the zero address (nothing sent there can be spent), one
 * of the service's own collection addresses (the payout would pay nobody while the books count it
 * paid), or a token contract (tokens sent to a token's own contract are lost).
 */
export type UnpayableAccount = "zero" | "collection" | "token"

const zeroAddress = /^0x0{40}$/i

// The address part of a CAIP-19 token id (`eip155:8453/erc20:0x…`), lower case.
const contractOf = (assetId: string) => /\/erc20:(0x[0-9a-fA-F]{40})$/.exec(assetId)?.[1]?.toLowerCase()

/** Whether `address` (0x hex, any case) is one no payout may go to, given the service's tokens. */
export const unpayableAccount = (assets: ReadonlyArray<PayableAsset>, address: string): UnpayableAccount | undefined => {
  if (zeroAddress.test(address)) return "zero"
  const lower = address.toLowerCase()
  for (const asset of assets) {
    if (asset.collectionAddress.toLowerCase() === lower) return "collection"
    if (contractOf(asset.assetId) === lower) return "token"
  }
  return undefined
}
