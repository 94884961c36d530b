import { Context } from "effect"
import type { Mode } from "../payment/Payment.ts"
import type { PayableAsset } from "./AssetCatalog.ts"

/** A network the service is configured on. */
export interface ConfiguredNetwork {
  /** CAIP-2 chain id. */
  readonly chainId: string
  /** The payments it carries (`NetworkModes`). */
  readonly mode: Mode
  /** The block explorer's address as configured, or `null` (a local chain has none). */
  readonly explorerUrl: string | null
  /** Where payments on it are collected. */
  readonly collectionAddress: string
}

/**
 * The networks and tokens as the host configured them, in its order: what the dashboard lists and
 * which networks the checkout asks wallets for. `AssetCatalog` answers for one token or chain.
 */
export class ConfiguredNetworks extends Context.Service<ConfiguredNetworks, {
  /** Every configured network, in the configuration's order. */
  readonly networks: ReadonlyArray<ConfiguredNetwork>
  /** Every accepted token, in the configuration's order (`AssetCatalog.all` groups them by chain). */
  readonly assets: ReadonlyArray<PayableAsset>
}>()("@paygate/domain/ConfiguredNetworks") {}
