/**
 * The domain's `AssetCatalog` port from the chain configuration: every configured token, `pull`
 * when it implements EIP-3009 (or goes through Permit2), `push` otherwise; EIP-3009 tokens of a chain
 * with a `paymentEscrow` name it (`escrowAddress`: they can be held).
 *
 * @module
 */
import { AssetCatalog, Caip, isEip3009, type PayableAsset } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { type AssetSettings, type ChainSettings, ChainsConfig, lookupAsset, viaPermit2 } from "./ChainConfig.ts"

/** Seconds to complete a payment when the configuration does not say. */
export const defaultEtaSeconds = 15

/** What wallets are shown for a configured token of `chain`. */
export const toPayableAsset = (asset: AssetSettings, chain: Pick<ChainSettings, "collectionAddress" | "paymentEscrow">): PayableAsset => {
  const payable = payableOf(asset, chain.collectionAddress)
  // Held payments are paid by an EIP-3009 ReceiveWithAuthorization to the escrow: not through Permit2, not in the coin.
  return chain.paymentEscrow !== undefined && isEip3009(payable) ? { ...payable, escrowAddress: chain.paymentEscrow } : payable
}

const payableOf = (asset: AssetSettings, collectionAddress: string): PayableAsset => ({
  assetId: asset.assetId,
  chainId: Caip.assetChainId(asset.assetId),
  decimals: asset.decimals,
  symbol: asset.symbol,
  name: asset.name,
  iconUrl: asset.iconUrl,
  networkName: asset.networkName,
  networkIconUrl: asset.networkIconUrl ?? null,
  kind: asset.eip3009 || viaPermit2(asset) ? "pull" : "push",
  ...(viaPermit2(asset) ? { permit2: true } : {}),
  etaSeconds: asset.etaSeconds ?? defaultEtaSeconds,
  collectionAddress
})

/** The catalog of the configured tokens; asset ids are matched in any address case. */
export const layer: Layer.Layer<AssetCatalog, never, ChainsConfig> = Layer.effect(
  AssetCatalog,
  Effect.gen(function*() {
    const chains = yield* ChainsConfig
    const byChain = new Map<string, Array<PayableAsset>>()
    for (const asset of chains.settings.assets) {
      // Every configured asset's chain is configured (the configuration is checked as a whole).
      const payable = toPayableAsset(asset, lookupAsset(chains, asset.assetId)!.chain)
      byChain.set(payable.chainId, [...(byChain.get(payable.chainId) ?? []), payable])
    }
    return AssetCatalog.of({
      all: [...byChain.values()].flat(),
      assetsOn: (chainId) => byChain.get(chainId) ?? [],
      asset: (assetId) => {
        const found = lookupAsset(chains, assetId)
        return found === undefined ? undefined : toPayableAsset(found.asset, found.chain)
      }
    })
  })
)
