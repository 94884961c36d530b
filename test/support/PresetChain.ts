/**
 * Anvil playing a named network (see `NetworkPresets`): a local chain at the network's real chain id,
 * the test token's code placed at the preset's USDC address (owner anvil #0, the executor, who
 * mints), with TUSDC minted to the accounts given, and the `DepositFactory` `LocalChain` deployed
 * (owned by anvil #0, sweeping to anvil #9, the collection address).
 */
import { Chain } from "@paygate/adapters"
import { Context, Effect, Layer, type Scope } from "effect"
import { type Address, createPublicClient, createWalletClient, encodeFunctionData, type Hex, http, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"

const { anvilAccount, LocalChain } = Chain

const token = parseAbi([
  "function mint(address to, uint256 value)",
  "function balanceOf(address) view returns (uint256)"
])

/** A running preset chain. */
export interface PresetChain {
  readonly rpcUrl: string
  readonly client: ReturnType<typeof createPublicClient>
  readonly depositFactory: Address
  /** The TestUsdt `LocalChain` deployed (Permit2 is at its canonical address). */
  readonly testUsdt: Address
  /** The preset USDC balance of `address`. */
  readonly balanceOf: (address: Address) => Promise<bigint>
}

/** Starts the chain in `scope`; each of `holders` gets 1,000 TUSDC at the preset's USDC address. */
export const presetChain = async (scope: Scope.Scope, chainNumber: number, usdc: Hex, holders: ReadonlyArray<Address>): Promise<PresetChain> => {
  const executor = anvilAccount(0)
  const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer({ chainId: chainNumber, blockTimeSeconds: 0.1 }), scope))
  const local = Context.get(context, LocalChain.LocalChain)
  const rpcUrl = local.node.rpcUrl
  const client = createPublicClient({ transport: http(rpcUrl) })
  const code = await client.getCode({ address: local.contracts.usdc })
  await client.request({ method: "anvil_setCode" as never, params: [usdc, code] as never })
  // Storage slot 0 is the token's owner, who may mint.
  await client.request({ method: "anvil_setStorageAt" as never, params: [usdc, "0x0", `0x${executor.address.slice(2).padStart(64, "0")}`] as never })
  const owner = createWalletClient({ account: privateKeyToAccount(executor.privateKey), transport: http(rpcUrl) })
  for (const holder of holders) {
    const hash = await owner.sendTransaction({
      chain: null,
      to: usdc,
      data: encodeFunctionData({ abi: token, functionName: "mint", args: [holder, 1_000_000_000n] })
    })
    await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
  return {
    rpcUrl,
    client,
    depositFactory: local.contracts.depositFactory,
    testUsdt: local.contracts.usdt,
    balanceOf: (address) => client.readContract({ address: usdc, abi: token, functionName: "balanceOf", args: [address] })
  }
}
