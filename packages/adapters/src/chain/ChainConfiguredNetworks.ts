/**
 * The domain's `ConfiguredNetworks` from the chain configuration: its chains and tokens in the
 * order the operator wrote them.
 *
 * @module
 */
import { ConfiguredNetworks } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { toPayableAsset } from "./ChainAssetCatalog.ts"
import { chainMode, ChainsConfig, lookupAsset } from "./ChainConfig.ts"

/** The configured networks and tokens. */
export const layer: Layer.Layer<ConfiguredNetworks, never, ChainsConfig> = Layer.effect(
  ConfiguredNetworks,
  Effect.map(ChainsConfig, (chains) =>
    ConfiguredNetworks.of({
      networks: [...chains.chains.values()].map((chain) => ({
        chainId: chain.chainId,
        mode: chainMode(chain),
        explorerUrl: chain.explorerUrl ?? null,
        collectionAddress: chain.collectionAddress
      })),
      // Every configured asset's chain is configured (the configuration is checked as a whole).
      assets: chains.settings.assets.map((asset) => toPayableAsset(asset, lookupAsset(chains, asset.assetId)!.chain))
    }))
)
