/**
 * The domain's `ExplorerLinks` from the chain configuration: `{explorerUrl}/tx/{hash}` for a chain
 * with an `explorerUrl` (each named network has one), none for the others (a local chain).
 *
 * @module
 */
import { ExplorerLinks } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { ChainsConfig } from "./ChainConfig.ts"

/** `ExplorerLinks` over the configured chains. */
export const layer = Layer.effect(
  ExplorerLinks,
  Effect.map(ChainsConfig, (chains) => ({
    transaction: (chainId: string, hash: string) => {
      const explorer = chains.chains.get(chainId)?.explorerUrl
      return explorer === undefined ? null : `${explorer.replace(/\/+$/, "")}/tx/${hash}`
    }
  }))
)
