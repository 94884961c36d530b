/**
 * The deposit contracts themselves on anvil (`DepositFactoryV2.sol`, and the first
 * `DepositFactory.sol`): addresses computed off chain are where the factory deploys; a sweep deploys
 * and moves the whole balance (of a token, or of ether) to the factory's destination, for several
 * deposits in one transaction, and moves nothing twice; only the owner sweeps or changes the
 * destination, and a forwarder obeys its factory alone; a first-version factory still computes and
 * sweeps its own addresses.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  parseEventLogs,
  type PublicClient,
  type TransactionReceipt
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { DepositFactory, DepositFactoryV2 as Factory, DepositForwarderV2, TestEtherSender, TestUsdc } from "../../src/chain/contracts.generated.ts"
import { depositAddress, factoryOf, saltOf, sweepCall } from "../../src/chain/DepositAddresses.ts"
import { nativeToken } from "../../src/chain/NativeAsset.ts"
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

describe("DepositFactoryV2 with tokens", () => {
  it("is owned by the executor and sweeps to the collection address", async () => {
    const factory = chain.contracts.depositFactory
    expect(await client.readContract({ address: factory, abi: Factory.abi, functionName: "owner" })).toBe(executor.address)
    expect(await client.readContract({ address: factory, abi: Factory.abi, functionName: "destination" })).toBe(collection.address)
  })

  it("computes the same address off chain as on chain, a different one per payment id, nothing deployed yet", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => unique(`a${i}`))
    const addresses = ids.map((id) => depositAddress(chain.contracts.depositFactory, id))
    expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(ids.length)
    for (const [i, id] of ids.entries()) {
      const onChain = await client.readContract({
        address: chain.contracts.depositFactory,
        abi: Factory.abi,
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
    const swept = parseEventLogs({ abi: Factory.abi, eventName: "Swept", logs: receipt.logs })
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
    const redirect = encodeFunctionData({ abi: Factory.abi, functionName: "setDestination", args: [stranger.address] })
    expect((await call(stranger, chain.contracts.depositFactory, redirect)).status).toBe("reverted")
    expect((await call(stranger, chain.contracts.depositFactory, encodeFunctionData({
      abi: Factory.abi,
      functionName: "transferOwnership",
      args: [stranger.address]
    }))).status).toBe("reverted")
    expect(await balanceOf(address)).toBe(2_000_000n)

    // Deployed by a sweep, the forwarder refuses anyone but its factory.
    await sweep(executor, [id])
    await pay(address, 3_000_000n)
    const direct = encodeFunctionData({ abi: DepositForwarderV2.abi, functionName: "sweep", args: [chain.contracts.usdc] })
    expect((await call(stranger, address, direct)).status).toBe("reverted")
    expect((await call(executor, address, direct)).status).toBe("reverted")
    expect(await balanceOf(address)).toBe(3_000_000n)

    // The owner redirects: sweeps go where the factory now says.
    const other = anvilAccount(4).address
    const otherBefore = await balanceOf(other)
    const set = (to: Address) => encodeFunctionData({ abi: Factory.abi, functionName: "setDestination", args: [to] })
    expect((await call(executor, chain.contracts.depositFactory, set(other))).status).toBe("success")
    await sweep(executor, [id])
    expect(await balanceOf(other)).toBe(otherBefore + 3_000_000n)
    expect((await call(executor, chain.contracts.depositFactory, set(collection.address))).status).toBe("success")
  })
})

const ether = nativeToken
const factoryV2 = () => chain.contracts.depositFactory
const etherOf = (address: Address) => client.getBalance({ address })
/** Sends `value` wei to `to` from `from`, mined. */
const sendEther = async (from: typeof executor, to: Address, value: bigint) => {
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), transport: http(chain.node.rpcUrl) })
  const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, to, value }) })
  expect(receipt.status).toBe("success")
  return receipt
}
const sweepEther = (from: typeof executor, ids: ReadonlyArray<string>) => call(from, factoryV2(), sweepCall(ether, ids.map(saltOf)))
const sweptLogs = (receipt: TransactionReceipt) =>
  parseEventLogs({ abi: Factory.abi, eventName: "Swept", logs: receipt.logs }).map((log) => [log.args.forwarder, log.args.token, log.args.to, log.args.amount])

describe("DepositFactoryV2 with ether", () => {
  it("takes ether before and after its forwarder is deployed (from an account, and a contract's 2,300-gas transfer); sweeps all of it to the destination, the executor paying the gas; again, nothing", async () => {
    expect(await client.readContract({ address: factoryV2(), abi: Factory.abi, functionName: "version" })).toBe(2n)
    const ids = [unique("f"), unique("g")]
    const addresses = ids.map((id) => depositAddress(factoryV2(), id))
    await sendEther(buyer, addresses[0]!, 10n ** 18n)
    await sendEther(buyer, addresses[1]!, 2n * 10n ** 18n + 1n)
    const [collectionBefore, executorBefore] = [await etherOf(collection.address), await etherOf(executor.address)]
    const receipt = await sweepEther(executor, ids)
    expect(receipt.status).toBe("success")
    // The forwarders send their whole balance; the sweep's gas is the executor's alone.
    expect(await etherOf(collection.address)).toBe(collectionBefore + 3n * 10n ** 18n + 1n)
    expect(await etherOf(executor.address)).toBe(executorBefore - receipt.gasUsed * receipt.effectiveGasPrice)
    for (const address of addresses) expect(await etherOf(address)).toBe(0n)
    expect(sweptLogs(receipt)).toEqual([
      [addresses[0], ether, collection.address, 10n ** 18n],
      [addresses[1], ether, collection.address, 2n * 10n ** 18n + 1n]
    ])
    // Sent twice: the second moves nothing.
    const again = await sweepEther(executor, ids)
    expect(again.status).toBe("success")
    expect(sweptLogs(again).map((log) => log[3])).toEqual([0n, 0n])
    expect(await etherOf(collection.address)).toBe(collectionBefore + 3n * 10n ** 18n + 1n)

    // Deployed now: the forwarder's `receive` takes ether, from an account and from a contract's `transfer`.
    await sendEther(buyer, addresses[0]!, 5n)
    const sender = await deploy(TestEtherSender.bytecode)
    const forwarded = await client.waitForTransactionReceipt({
      hash: await createWalletClient({ account: privateKeyToAccount(buyer.privateKey), transport: http(chain.node.rpcUrl) }).sendTransaction({
        chain: null,
        to: sender,
        value: 7n,
        data: encodeFunctionData({ abi: TestEtherSender.abi, functionName: "send", args: [addresses[0]!] })
      })
    })
    expect(forwarded.status).toBe("success")
    expect(await etherOf(addresses[0]!)).toBe(12n)
    expect(sweptLogs(await sweepEther(executor, [ids[0]!]))).toEqual([[addresses[0], ether, collection.address, 12n]])
  })

  it("a token and ether at the same address: each swept by its own call, neither touching the other", async () => {
    const id = unique("h")
    const address = depositAddress(factoryV2(), id)
    await pay(address, 4_000_000n)
    await sendEther(buyer, address, 3n * 10n ** 15n)
    const tokensBefore = await balanceOf(collection.address)
    await sweep(executor, [id])
    expect([await balanceOf(address), await etherOf(address)]).toEqual([0n, 3n * 10n ** 15n])
    expect(await balanceOf(collection.address)).toBe(tokensBefore + 4_000_000n)
    const receipt = await sweepEther(executor, [id])
    expect(sweptLogs(receipt)).toEqual([[address, ether, collection.address, 3n * 10n ** 15n]])
    expect(await etherOf(address)).toBe(0n)
  })

  it("refuses: a stranger's ether sweep, a forwarder asked by anyone but its factory; ether goes nowhere but the destination", async () => {
    const id = unique("i")
    const address = depositAddress(factoryV2(), id)
    await sendEther(buyer, address, 10n ** 16n)
    expect((await sweepEther(stranger, [id])).status).toBe("reverted")
    expect(await etherOf(address)).toBe(10n ** 16n)
    await sweepEther(executor, [id])
    await sendEther(buyer, address, 10n ** 16n)
    const direct = encodeFunctionData({ abi: DepositForwarderV2.abi, functionName: "sweep", args: [ether] })
    expect((await call(stranger, address, direct)).status).toBe("reverted")
    expect((await call(executor, address, direct)).status).toBe("reverted")
    expect(await etherOf(address)).toBe(10n ** 16n)
    // The factory itself takes no ether: sent there by mistake, it is refused, not kept.
    const wallet = createWalletClient({ account: privateKeyToAccount(buyer.privateKey), transport: http(chain.node.rpcUrl) })
    await expect(wallet.sendTransaction({ chain: null, to: factoryV2(), value: 1n })).rejects.toThrow()
  })
})

/** Deploys `data` (creation code with its arguments) from the executor; answers the address. */
const deploy = async (data: Hex) => {
  const wallet = createWalletClient({ account: privateKeyToAccount(executor.privateKey), transport: http(chain.node.rpcUrl) })
  const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, data, gas: 5_000_000n }) })
  expect(receipt.status).toBe("success")
  return receipt.contractAddress!
}

describe("DepositFactory (the first version)", () => {
  it("still computes and sweeps the addresses it handed out, which differ from the second version's; it takes no ether once deployed", async () => {
    const first = await deploy(encodeDeployData({ abi: DepositFactory.abi, bytecode: DepositFactory.bytecode, args: [executor.address, collection.address] }))
    const id = unique("j")
    const address = depositAddress(first, id, 1)
    expect(await client.readContract({ address: first, abi: DepositFactory.abi, functionName: "addressOf", args: [saltOf(id)] })).toBe(address)
    expect(address).not.toBe(depositAddress(first, id))
    expect(factoryOf([{ address: factoryV2(), version: 2 }, { address: first, version: 1 }], id, address)).toEqual({ address: first, version: 1 })
    await pay(address, 1_500_000n)
    const before = await balanceOf(collection.address)
    const receipt = await call(executor, first, sweepCall(chain.contracts.usdc, [saltOf(id)]))
    expect(receipt.status).toBe("success")
    expect(await balanceOf(collection.address)).toBe(before + 1_500_000n)
    expect(parseEventLogs({ abi: DepositFactory.abi, eventName: "Swept", logs: receipt.logs }).map((log) => log.args.amount)).toEqual([1_500_000n])
    // Ether at a first-version forwarder could never leave it: its code refuses it.
    const wallet = createWalletClient({ account: privateKeyToAccount(buyer.privateKey), transport: http(chain.node.rpcUrl) })
    await expect(wallet.sendTransaction({ chain: null, to: address, value: 1n })).rejects.toThrow()
  })
})
