/**
 * The deposit contracts themselves on anvil (`DepositFactory.sol`): addresses computed off chain
 * are where the factory deploys; a sweep deploys and moves the whole balance to the factory's
 * destination, for several deposits in one transaction, and moves nothing twice; only the owner
 * sweeps or changes the destination, and a forwarder obeys its factory alone.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEventLogs,
  type PublicClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { DepositFactory, DepositForwarder, TestUsdc } from "../../src/chain/contracts.generated.ts"
import { depositAddress, saltOf, sweepCall } from "../../src/chain/DepositAddresses.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient

beforeAll(async () => {
  const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer(), scope))
  chain = Context.get(context, LocalChain.LocalChain)
  client = createPublicClient({ transport: http(chain.node.rpcUrl) }) as PublicClient
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const executor = anvilAccount(0)
const collection = anvilAccount(9)
const stranger = anvilAccount(5)
const buyer = anvilAccount(6)

/** Sends `data` to `to` from `from`; answers the receipt (reverted ones too). */
const call = async (from: typeof executor, to: Address, data: Hex) => {
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), transport: http(chain.node.rpcUrl) })
  const hash = await wallet.sendTransaction({ chain: null, to, data, gas: 3_000_000n })
  return client.waitForTransactionReceipt({ hash })
}
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
const pay = (to: Address, value: bigint) =>
  call(buyer, chain.contracts.usdc, encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [to, value] }))
const sweep = (from: typeof executor, ids: ReadonlyArray<string>) =>
  call(from, chain.contracts.depositFactory, sweepCall(chain.contracts.usdc, ids.map(saltOf)))
const unique = (label: string) => `pay_${label}${Math.random().toString(36).slice(2, 10)}`

describe("DepositFactory", () => {
  it("is owned by the executor and sweeps to the collection address", async () => {
    const factory = chain.contracts.depositFactory
    expect(await client.readContract({ address: factory, abi: DepositFactory.abi, functionName: "owner" })).toBe(executor.address)
    expect(await client.readContract({ address: factory, abi: DepositFactory.abi, functionName: "destination" })).toBe(collection.address)
  })

  it("computes the same address off chain as on chain, a different one per payment id, nothing deployed yet", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => unique(`a${i}`))
    const addresses = ids.map((id) => depositAddress(chain.contracts.depositFactory, id))
    expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(ids.length)
    for (const [i, id] of ids.entries()) {
      const onChain = await client.readContract({
        address: chain.contracts.depositFactory,
        abi: DepositFactory.abi,
        functionName: "addressOf",
        args: [saltOf(id)]
      })
      expect(onChain).toBe(addresses[i])
      expect(await client.getCode({ address: addresses[i]! })).toBeUndefined()
    }
  })

  it("deploys and sweeps several deposits in one transaction; a second sweep moves nothing", async () => {
    const ids = [unique("b"), unique("c"), unique("d")]
    const addresses = ids.map((id) => depositAddress(chain.contracts.depositFactory, id))
    for (const [i, address] of addresses.entries()) await pay(address, 1_000_000n * BigInt(i + 1))
    const before = await balanceOf(collection.address)
    const receipt = await sweep(executor, ids)
    expect(receipt.status).toBe("success")
    expect(await balanceOf(collection.address)).toBe(before + 6_000_000n)
    for (const address of addresses) {
      expect(await balanceOf(address)).toBe(0n)
      expect(await client.getCode({ address })).toMatch(/^0x[0-9a-f]+$/)
    }
    const swept = parseEventLogs({ abi: DepositFactory.abi, eventName: "Swept", logs: receipt.logs })
    expect(swept.map((log) => [log.args.forwarder, log.args.amount])).toEqual(addresses.map((a, i) => [a, 1_000_000n * BigInt(i + 1)]))

    // Again (a worker that did not learn the first one's outcome): deployed already, nothing left to move.
    const again = await sweep(executor, ids)
    expect(again.status).toBe("success")
    expect(await balanceOf(collection.address)).toBe(before + 6_000_000n)
    // A later transfer into a deployed forwarder is swept by the same call.
    await pay(addresses[0]!, 500_000n)
    await sweep(executor, [ids[0]!])
    expect(await balanceOf(collection.address)).toBe(before + 6_500_000n)
  })

  it("only the owner sweeps or redirects, and a forwarder obeys its factory alone", async () => {
    const id = unique("e")
    const address = depositAddress(chain.contracts.depositFactory, id)
    await pay(address, 2_000_000n)
    expect((await sweep(stranger, [id])).status).toBe("reverted")
    const redirect = encodeFunctionData({ abi: DepositFactory.abi, functionName: "setDestination", args: [stranger.address] })
    expect((await call(stranger, chain.contracts.depositFactory, redirect)).status).toBe("reverted")
    expect((await call(stranger, chain.contracts.depositFactory, encodeFunctionData({
      abi: DepositFactory.abi,
      functionName: "transferOwnership",
      args: [stranger.address]
    }))).status).toBe("reverted")
    expect(await balanceOf(address)).toBe(2_000_000n)

    // Deployed by a sweep, the forwarder refuses anyone but its factory.
    await sweep(executor, [id])
    await pay(address, 3_000_000n)
    const direct = encodeFunctionData({ abi: DepositForwarder.abi, functionName: "sweep", args: [chain.contracts.usdc] })
    expect((await call(stranger, address, direct)).status).toBe("reverted")
    expect((await call(executor, address, direct)).status).toBe("reverted")
    expect(await balanceOf(address)).toBe(3_000_000n)

    // The owner redirects: sweeps go where the factory now says.
    const other = anvilAccount(4).address
    const otherBefore = await balanceOf(other)
    const set = (to: Address) => encodeFunctionData({ abi: DepositFactory.abi, functionName: "setDestination", args: [to] })
    expect((await call(executor, chain.contracts.depositFactory, set(other))).status).toBe("success")
    await sweep(executor, [id])
    expect(await balanceOf(other)).toBe(otherBefore + 3_000_000n)
    expect((await call(executor, chain.contracts.depositFactory, set(collection.address))).status).toBe("success")
  })
})
