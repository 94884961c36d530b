/**
 * One anvil for a test file (`LocalChain`: the test token, executor anvil #0, collection address
 * anvil #9 with its key), reached through a proxy a test can cut to play an RPC outage, with token
 * balances read on chain (never through the proxy).
 */
import { Chain } from "@paygate/adapters"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { createPublicClient, type Hex, http, parseAbi } from "viem"
import { afterAll, beforeAll } from "vitest"
import { type CuttableProxy, startProxy } from "./CuttableProxy.ts"

const { LocalChain } = Chain
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

/** A running local chain and its proxy. */
export interface LocalChainWorld {
  readonly chain: Chain.LocalChain.LocalChainInfo
  readonly proxy: CuttableProxy
  /** The chain configuration (JSON form, see `ChainConfig`) with the RPC through the proxy. */
  readonly settings: () => ReturnType<typeof LocalChain.settingsFor>
  /** The test token balance of `address`. */
  readonly balanceOf: (address: Hex) => Promise<bigint>
  /** A public client straight to anvil. */
  readonly client: ReturnType<typeof createPublicClient>
}

/**
 * Starts a local chain before the file's tests and stops it after them; answers a getter of it
 * (valid from the tests and their hooks on). A file running two chains gives the second its own
 * chain id (`options.chainId`).
 */
export const localChainForFile = (options: Chain.LocalChain.LocalChainOptions = {}): (() => LocalChainWorld) => {
  const scope = Effect.runSync(Scope.make())
  let world: LocalChainWorld | undefined
  beforeAll(async () => {
    const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer(options), scope))
    const chain = Context.get(context, LocalChain.LocalChain)
    const proxy = await startProxy(chain.node.rpcUrl)
    const client = createPublicClient({ transport: http(chain.node.rpcUrl) })
    world = {
      chain,
      proxy,
      client,
      settings: () => {
        const base = LocalChain.settingsFor(chain, 1)
        return { ...base, chains: base.chains.map((c) => ({ ...c, rpcUrl: proxy.url })) }
      },
      balanceOf: (address) =>
        client.readContract({ address: chain.contracts.usdc, abi: erc20, functionName: "balanceOf", args: [address] })
    }
  }, 120_000)
  afterAll(async () => {
    await world?.proxy.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return () => {
    if (world === undefined) throw new Error("the local chain is not started yet")
    return world
  }
}
