/**
 * Anvil playing a named network (see `NetworkPresets`): a local chain at the network's real chain id,
 * the test token's code placed at the preset's USDC address (owner anvil #0, the executor, who
 * mints), with TUSDC minted to the accounts given, optionally more tokens and price feeds at their
 * real addresses (`PresetExtras`), and the `DepositFactory` `LocalChain` deployed
 * (owned by anvil #0, sweeping to anvil #9, the collection address), with TestPermit2 at Permit2's
 * canonical address.
 */
import { Chain } from "@paygate/adapters"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { type Address, createPublicClient, createWalletClient, encodeFunctionData, type Hex, http, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"

const { anvilAccount, LocalChain } = Chain

const token = parseAbi([
  "function mint(address to, uint256 value)",
  "function balanceOf(address) view returns (uint256)"
])
const feedAbi = parseAbi(["function setAnswer(int256 answer)"])

/** A running preset chain. */
export interface PresetChain {
  readonly rpcUrl: string
  readonly client: ReturnType<typeof createPublicClient>
  readonly depositFactory: Address
  /** The TestUsdt `LocalChain` deployed (Permit2 is at its canonical address). */
  readonly testUsdt: Address
  /** The preset USDC balance of `address`. */
  readonly balanceOf: (address: Address) => Promise<bigint>
  /** The balance of `address` in the token at `token` (one of the extras). */
  readonly balanceAt: (token: Hex, address: Address) => Promise<bigint>
}

/** What else a preset chain holds at the network's real addresses. */
export interface PresetExtras {
  /** More tokens (the test token's code, 1,000 of it for each holder), e.g. EURC or USDT0. */
  readonly tokens?: ReadonlyArray<Hex> | undefined
  /** Price feeds (the test feed's code, owner anvil #0) with their answer (8 decimals), e.g. ETH / USD. */
  readonly feeds?: ReadonlyArray<{ readonly address: Hex; readonly answer: bigint }> | undefined
}

/** Starts the chain in `scope`; each of `holders` gets 1,000 TUSDC at the preset's USDC address (and at each of `extras.tokens`). */
export const presetChain = async (
  scope: Scope.Scope,
  chainNumber: number,
  usdc: Hex,
  holders: ReadonlyArray<Address>,
  extras: PresetExtras = {}
): Promise<PresetChain> => {
  const executor = anvilAccount(0)
  const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer({ chainId: chainNumber, blockTimeSeconds: 0.1 }), scope))
  const local = Context.get(context, LocalChain.LocalChain)
  const rpcUrl = local.node.rpcUrl
  const client = createPublicClient({ transport: http(rpcUrl) })
  const owner = createWalletClient({ account: privateKeyToAccount(executor.privateKey), transport: http(rpcUrl) })
  const call = async (to: Hex, data: Hex) =>
    client.waitForTransactionReceipt({ hash: await owner.sendTransaction({ chain: null, to, data }), pollingInterval: 50 })
  // The code of `from` at `at`, owned (storage slot 0) by anvil #0.
  const place = async (from: Address, at: Hex) => {
    await client.request({ method: "anvil_setCode" as never, params: [at, await client.getCode({ address: from })] as never })
    await client.request({ method: "anvil_setStorageAt" as never, params: [at, "0x0", `0x${executor.address.slice(2).padStart(64, "0")}`] as never })
  }
  for (const address of [usdc, ...(extras.tokens ?? [])]) {
    await place(local.contracts.usdc, address)
    for (const holder of holders) await call(address, encodeFunctionData({ abi: token, functionName: "mint", args: [holder, 1_000_000_000n] }))
  }
  for (const feed of extras.feeds ?? []) {
    await place(local.contracts.priceFeed, feed.address)
    await call(feed.address, encodeFunctionData({ abi: feedAbi, functionName: "setAnswer", args: [feed.answer] }))
  }
  return {
    rpcUrl,
    client,
    depositFactory: local.contracts.depositFactory,
    testUsdt: local.contracts.usdt,
    balanceOf: (address) => client.readContract({ address: usdc, abi: token, functionName: "balanceOf", args: [address] }),
    balanceAt: (at, address) => client.readContract({ address: at, abi: token, functionName: "balanceOf", args: [address] })
  }
}

/**
 * Closes a file's test server, then its preset chains (started in `chains`), even when the server's close fails its
 * checks: a preset chain mines every 0.1 s and would otherwise outlive the file.
 */
export const closeServerThenChains = async (server: { readonly close: () => Promise<void> } | undefined, chains: Scope.Closeable) => {
  try {
    await server?.close()
  } finally {
    await Effect.runPromise(Scope.close(chains, Exit.void))
  }
}
