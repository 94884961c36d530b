import { Context } from "effect"

/** A token the service collects, on one chain, with what a wallet shows for it. */
export interface PayableAsset {
  /** CAIP-19 asset id (checksummed for eip155). */
  readonly assetId: string
  /** CAIP-2 chain id. */
  readonly chainId: string
  readonly decimals: number
  readonly symbol: string
  readonly name: string
  readonly iconUrl: string | null
  readonly networkName: string
  readonly networkIconUrl: string | null
  /** `pull` when the token supports EIP-3009 authorizations (and pull is on), else `push`. */
  readonly kind: "pull" | "push"
  /**
   * A pull token without EIP-3009, pulled through Permit2: the wallet may first have to approve
   * Permit2 on the token, so a confirm's results carry those transactions' hashes before the signature.
   */
  readonly permit2?: boolean | undefined
  /** Seconds a wallet typically needs to complete an option in this asset. */
  readonly etaSeconds: number
  /** Where payments in this asset are sent: the chain's collection address. */
  readonly collectionAddress: string
  /** The chain's payment escrow (0x address), where held payments in an EIP-3009 token go; absent without one. */
  readonly escrowAddress?: string | undefined
}

/** Whether a buyer pays `asset` by signing an EIP-3009 transfer authorization (not Permit2, not a transfer). */
export const isEip3009 = (asset: PayableAsset): boolean => asset.kind === "pull" && asset.permit2 !== true

/** Whether a held payment (`capture: "manual"`) can be paid in `asset`: an EIP-3009 token on a chain with an escrow. */
export const isHoldable = (asset: PayableAsset): boolean => isEip3009(asset) && asset.escrowAddress !== undefined

/** The configured chains and tokens the service accepts payments in. */
export class AssetCatalog extends Context.Service<AssetCatalog, {
  /** Tokens accepted on a CAIP-2 chain (empty for chains the service does not serve). */
  readonly assetsOn: (chainId: string) => ReadonlyArray<PayableAsset>
  /** Every accepted token, on every configured chain. */
  readonly all: ReadonlyArray<PayableAsset>
  /** One token by its CAIP-19 id. */
  readonly asset: (assetId: string) => PayableAsset | undefined
}>()("@paygate/domain/AssetCatalog") {}
