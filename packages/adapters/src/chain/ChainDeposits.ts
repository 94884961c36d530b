/**
 * The domain's `DepositChains` port from the chain configuration: the chains with a
 * `depositFactory`, and each payment's CREATE2 deposit address under it (`DepositAddresses`); its
 * addresses take the chain's own coin (a version-2 factory sweeps it). The chains swept also count
 * those with only the first-version factory.
 *
 * @module
 */
import { DepositChains } from "@paygate/domain"
import { Effect, Layer } from "effect"
import type { Address } from "viem"
import { ChainsConfig } from "./ChainConfig.ts"
import { depositAddress, factoriesOf } from "./DepositAddresses.ts"

/** The port over the configured chains. */
export const layer: Layer.Layer<DepositChains, never, ChainsConfig> = Layer.effect(
  DepositChains,
  Effect.gen(function*() {
    const chains = yield* ChainsConfig
    const factories = new Map<string, Address>(
      chains.settings.chains.flatMap((chain) => (chain.depositFactory === undefined ? [] : [[chain.chainId, chain.depositFactory as Address] as const]))
    )
    return DepositChains.of({
      chains: [...factories.keys()],
      swept: chains.settings.chains.filter((chain) => factoriesOf(chain).length > 0).map((chain) => chain.chainId),
      addressOf: (chainId, paymentId) => {
        const factory = factories.get(chainId)
        return factory === undefined ? undefined : depositAddress(factory, paymentId)
      }
    })
  })
)
