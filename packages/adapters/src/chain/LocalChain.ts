/**
 * A complete local chain for development and tests: a fresh anvil node, the test contracts deployed
 * on it (TUSDC minted to the ten default accounts), and the matching chain configuration: executor
 * anvil #0, collection address anvil #9 (with its key, so payouts are sent from it), TUSDC accepted
 * as an EIP-3009 token pegged to USD.
 *
 * ```ts
 * ViemChainGateway.layer.pipe(
 *   Layer.provideMerge(LocalChain.layer()),
 *   Layer.provide(SignatureRecovery.layerWorkers())
 * )
 * ```
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import type { Address } from "viem"
import * as Anvil from "./Anvil.ts"
import { anvilAccount } from "./AnvilAccounts.ts"
import * as ChainConfig from "./ChainConfig.ts"
import { deployTestContracts, type DeployError, type TestContracts } from "./Deploy.ts"

/** Options of {@link layer}. */
export interface LocalChainOptions extends Anvil.AnvilOptions {
  /** Confirmations a transfer needs; default 1. */
  readonly requiredConfirmations?: number | undefined
}

/** What runs locally. */
export interface LocalChainInfo {
  readonly node: Anvil.AnvilNode
  readonly contracts: TestContracts
  /** CAIP-2, e.g. `eip155:31337`. */
  readonly chainId: string
  /** CAIP-19 of TUSDC. */
  readonly usdcAssetId: string
  readonly collectionAddress: Address
  readonly executorAddress: Address
}

/** The local chain of the surrounding layer. */
export class LocalChain extends Context.Service<LocalChain, LocalChainInfo>()("@paygate/adapters/chain/LocalChain") {}

/** A 1×1 blue dot, so that the local configuration needs no network for its icon. */
const tusdcIcon = "data:image/svg+xml;base64," +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1" fill="#2775ca"/></svg>')
    .toString("base64")

/** The configuration (in its JSON form) of a local chain. */
export const settingsFor = (info: Omit<LocalChainInfo, "usdcAssetId" | "chainId">, requiredConfirmations: number) => ({
  chains: [{
    chainId: `eip155:${info.node.chainId}`,
    rpcUrl: info.node.rpcUrl,
    requiredConfirmations,
    executorPrivateKey: anvilAccount(0).privateKey,
    collectionAddress: info.collectionAddress,
    collectionPrivateKey: anvilAccount(9).privateKey
  }],
  assets: [{
    assetId: `eip155:${info.node.chainId}/erc20:${info.contracts.usdc}`,
    decimals: 6,
    symbol: "TUSDC",
    name: "Test USD Coin",
    iconUrl: tusdcIcon,
    networkName: "Anvil (local)",
    eip3009: true,
    pricing: { kind: "peg", currency: "USD" }
  }]
})

/** Starts anvil, deploys, and provides the node, the deployment and the chain configuration. */
export const layer = (
  options: LocalChainOptions = {}
): Layer.Layer<LocalChain | ChainConfig.ChainsConfig | Anvil.Anvil, Anvil.AnvilError | DeployError | ChainConfig.ChainConfigError> =>
  Layer.effectContext(
    Effect.gen(function*() {
      const node = yield* Anvil.start(options)
      const contracts = yield* deployTestContracts({ rpcUrl: node.rpcUrl, chainId: node.chainId })
      const base = {
        node,
        contracts,
        collectionAddress: anvilAccount(9).address,
        executorAddress: anvilAccount(0).address
      }
      const chains = yield* ChainConfig.decode(settingsFor(base, options.requiredConfirmations ?? 1))
      const info: LocalChainInfo = {
        ...base,
        chainId: `eip155:${node.chainId}`,
        usdcAssetId: `eip155:${node.chainId}/erc20:${contracts.usdc}`
      }
      return Context.make(LocalChain, info).pipe(
        Context.add(ChainConfig.ChainsConfig, chains),
        Context.add(Anvil.Anvil, node)
      )
    })
  )
