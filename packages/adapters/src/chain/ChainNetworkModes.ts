/**
 * The domain's `NetworkModes` from the chain configuration: each configured chain's `testnet`
 * declaration (sandbox payments on test networks, live ones on real networks).
 *
 * @module
 */
import { NetworkModes } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { chainMode, ChainsConfig } from "./ChainConfig.ts"

/** The modes of the configured chains. */
export const layer = Layer.effect(
  NetworkModes,
  Effect.map(ChainsConfig, (chains) => ({
    modeOf: (chainId: string) => {
      const chain = chains.chains.get(chainId)
      return chain === undefined ? undefined : chainMode(chain)
    }
  }))
)
