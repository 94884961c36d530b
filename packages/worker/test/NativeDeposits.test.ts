/**
 * The chain's own coin (TETH on anvil) paid into per-payment deposit addresses, on PGlite and
 * PostgreSQL, with the real watcher, sweeper and ledger: the deposit operation's EIP-681 value
 * request; ether sent by an account that never called the service credited once, swept through
 * `DepositFactoryV2` (what moved read from its `Swept` log) with a worker killed after broadcasting
 * the sweep and a watcher restarted in between, nothing moved or credited twice, the ledger equal to
 * the chain at the deposit and collection addresses; a token and ether at one address both swept;
 * an underpayment in ether completed by the rest; and an address handed out by the chain's first
 * `DepositFactory` before the upgrade, still tokens only, watched and swept through it.
 */
import { Chain, GatewayServices, SqlPersistence } from "@paygate/adapters"
import { DepositStore, DepositSweeper, DepositSweeps, type PaymentId, type ReconciliationLine } from "@paygate/domain"
import { Effect, Fiber, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { type Address, createWalletClient, encodeDeployData, getAddress, getContractAddress, http, parseEventLogs } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { executorJob } from "../../../test/support/ChainJobs.ts"
import { eventually as waitUntil } from "../../../test/support/Eventually.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { paymentReads } from "../../../test/support/PaymentReads.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { reconcileChains } from "../../../test/support/LedgerAudit.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { watcherJob } from "../../../test/support/WatcherJob.ts"
import { defaultPayoutSettings, depositSweepJob, PayoutSettings } from "../src/index.ts"

const { anvilAccount, ChainConfig, Contracts, DepositAddresses, LocalChain, NativeAsset, ViemDepositSweeper } = Chain

const world = localChainForFile()
const eventually = <A>(read: () => Promise<A>, done: (a: A) => boolean, withinMs = 45_000) => waitUntil(read, done, withinMs)

const fast = { ...defaultPayoutSettings, pollIntervalMs: 50, pendingRecheckMs: 100, unknownRecheckMs: 300, retryMs: 200, leaseMs: 1_500 }
const sweepJob = (sweeper: Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig> = ViemDepositSweeper.layer) =>
  depositSweepJob.pipe(Layer.provide(DepositSweeps.layer), Layer.provide(Layer.mergeAll(SqlPersistence.layer, sweeper)), Layer.provide(Layer.succeed(PayoutSettings, fast)))

/** A sweeper that dies, as a killed worker would, right after broadcasting its sweep. */
const dyingSweeper = Layer.effect(
  DepositSweeper,
  Effect.map(ViemDepositSweeper.make, (real) => ({
    ...real,
    send: (deposits, record) => real.send(deposits, record).pipe(Effect.andThen(Effect.die(new Error("killed after broadcast"))))
  }))
)

// The chain's first factory, deployed by an account of its own at its first nonce: its address is known before the server starts.
const firstDeployer = privateKeyToAccount(generatePrivateKey())
const firstFactory = getContractAddress({ from: firstDeployer.address, nonce: 0n })

beforeAll(async () => {
  await world().client.request({ method: "anvil_setBalance" as never, params: [firstDeployer.address, "0x56bc75e2d63100000"] as never })
  const wallet = createWalletClient({ account: firstDeployer, transport: http(world().chain.node.rpcUrl) })
  const hash = await wallet.sendTransaction({
    chain: null,
    data: encodeDeployData({ abi: Contracts.DepositFactory.abi, bytecode: Contracts.DepositFactory.bytecode, args: [anvilAccount(0).address, anvilAccount(9).address] })
  })
  expect(getAddress((await world().client.waitForTransactionReceipt({ hash })).contractAddress!)).toBe(firstFactory)
})

forEachDatabase("Native deposit addresses (anvil)", (database) => {
  const settings = () => {
    const base = LocalChain.settingsFor(world().chain, 1, { native: true })
    return { ...base, chains: base.chains.map((c) => ({ ...c, rpcUrl: world().proxy.url, depositFactoryV1: firstFactory })) }
  }
  let chains: Chain.ChainConfig.Chains
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let partner: TestPartner
  let walletKey: string
  let sweeper: Fiber.Fiber<unknown, unknown> | undefined
  let watcher: Fiber.Fiber<unknown, unknown> | undefined
  let executor: Fiber.Fiber<unknown, unknown> | undefined

  const chainId = () => world().chain.chainId
  const ethAsset = () => `${chainId()}/slip44:60`
  const collection = anvilAccount(9).address
  const launch = <E>(layer: Layer.Layer<never, E, Services>) => server.run(Effect.forkDetach(Layer.launch(layer)))
  const stop = async (fiber: Fiber.Fiber<unknown, unknown> | undefined) => {
    if (fiber !== undefined) await Effect.runPromise(Fiber.interrupt(fiber))
  }

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(settings()))
    // The executor follows a recorded transfer's transaction to its confirmations (processing → succeeded).
    executor = await launch(executorJob)
    watcher = await launch(watcherJob(chains))
    sweeper = await launch(sweepJob())
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
  }, 120_000)
  afterAll(async () => {
    await stop(sweeper)
    await stop(watcher)
    await stop(executor)
  })

  /** A payment of 12.50 USD of a merchant without a settlement destination (the funds stay at the collection address). */
  const newPayment = async () => (await server.payment(partner.sandbox, await server.merchant(partner.sandbox))).paymentId as string
  const options = async (paymentId: string) => {
    const answer = await server.request("POST", `/v1/gateway/payment/${paymentId}/deposit`, { apiKey: walletKey })
    expect(answer.status).toBe(200)
    return answer.body.options as Array<{ asset: string; address: Address; amount: { value: string }; uri: string; expiresAt: number | null }>
  }
  const ethOption = async (paymentId: string) => (await options(paymentId)).find((o) => o.asset === ethAsset())!
  /**
   * Ether from anvil account `index` (never an API caller), mined and succeeded. Its gas is fixed: an
   * estimate made while the address is still empty code (21,000) runs out once a sweep has deployed
   * the forwarder there in between, and the send reverts.
   */
  const sendEther = async (to: Address, value: bigint, index = 3) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(anvilAccount(index).privateKey), transport: http(world().chain.node.rpcUrl) })
    const hash = await wallet.sendTransaction({ chain: null, to, value, gas: 50_000n })
    expect((await world().client.waitForTransactionReceipt({ hash })).status).toBe("success")
    return hash
  }
  const payToken = (to: Address, value: bigint) =>
    sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(4).privateKey, token: world().chain.contracts.usdc, to, value })
  const { record, receiptOf, receipts, statusBecomes } = paymentReads(server, () => partner.sandbox)
  const etherOf = (address: Address) => world().client.getBalance({ address })
  /** The sweeps of `address` in the chain's own coin (the second factory's `Swept` logs), in chain order. */
  const etherSweeps = async (address: Address) => {
    const logs = await world().client.getLogs({ address: world().chain.contracts.depositFactory, fromBlock: 0n, toBlock: "latest" })
    return parseEventLogs({ abi: Contracts.DepositFactoryV2.abi, eventName: "Swept", logs })
      .filter((log) => log.args.forwarder === address && log.args.token === NativeAsset.nativeToken && log.args.amount > 0n)
      .map((log) => ({ tx: log.transactionHash, to: log.args.to, amount: log.args.amount }))
  }
  /** The ledger against the chain now, per address and token (`reconcileChain`, as the worker runs it). */
  const reconcile = async () => {
    const lines = await server.run(reconcileChains(chains).pipe(Effect.provide(SqlPersistence.layer)))
    return (asset: string, address: string): ReconciliationLine | undefined =>
      lines.find((l) => l.asset === asset && l.address === address.toLowerCase())
  }

  it("POST /deposit offers the coin at the payment's address: the quoted amount in wei, its EIP-681 value request and the quote's expiry", async () => {
    const paymentId = await newPayment()
    const all = await options(paymentId)
    const address = DepositAddresses.depositAddress(world().chain.contracts.depositFactory, paymentId)
    expect(all.map((o) => [o.asset, o.address])).toEqual([[world().chain.usdcAssetId, address], [ethAsset(), address]])
    const eth = all[1]!
    // 12.50 USD at the test feed's 2,000 USD per ether.
    expect(eth.amount.value).toBe("6250000000000000")
    expect(eth.uri).toBe(`ethereum:${address}@${world().chain.node.chainId}?value=6250000000000000`)
    expect(eth.expiresAt).toEqual(expect.any(Number))
    expect(await options(paymentId)).toEqual(all)
  })

  it("ether sent by an account to the deposit address: credited once, swept once through a killed worker and a restarted watcher, payment.succeeded, the ledger equal to the chain", async () => {
    await stop(sweeper)
    const paymentId = await newPayment()
    const { address, amount } = await ethOption(paymentId).then((o) => ({ address: o.address, amount: BigInt(o.amount.value) }))
    // What the collection address holds beyond the ledger (anvil's own funding of the account) must not change.
    const beforeLine = (await reconcile())(ethAsset(), collection)
    const [ledgerBefore, beyond] = beforeLine === undefined ? [0n, await etherOf(collection)] : [beforeLine.ledger, beforeLine.chain - beforeLine.ledger]
    const hash = await sendEther(address, amount)
    expect(await receiptOf(paymentId, hash)).toMatchObject({ outcome: "paid", value: amount.toString(), from: `${chainId()}:${anvilAccount(3).address}` })
    await statusBecomes(paymentId, "succeeded")

    // The watcher restarted: the transfer it read is not credited again.
    await stop(watcher)
    watcher = await launch(watcherJob(chains))
    // A worker broadcasts the sweep and dies before learning its outcome; the next one follows the same sweep.
    const dying = await launch(sweepJob(dyingSweeper))
    await eventually(() => etherOf(address), (balance) => balance === 0n)
    await stop(dying)
    sweeper = await launch(sweepJob())
    const after = await eventually(reconcile, (lines) => lines(ethAsset(), collection)?.ledger === ledgerBefore + amount)
    expect(await etherSweeps(address)).toEqual([{ tx: expect.any(String), to: collection, amount }])
    // Ledger = chain at the deposit address (empty), and the collection address moved by the same amount on both sides.
    expect(after(ethAsset(), address)).toMatchObject({ kind: "deposit", ledger: 0n, chain: 0n })
    const moved = after(ethAsset(), collection)!
    expect(moved.chain - moved.ledger).toBe(beyond)
    expect((await receipts(paymentId)).filter((r) => r.txHash === hash.toLowerCase())).toHaveLength(1)
    expect((await outboxEventsOf(server, paymentId)).map((e) => e.type).sort()).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  })

  it("a token and ether at the same address are both swept, the ledger equal to the chain in each", async () => {
    const paymentId = await newPayment()
    const eth = await ethOption(paymentId)
    await sendEther(eth.address, BigInt(eth.amount.value), 5)
    await statusBecomes(paymentId, "succeeded")
    // A token sent after it was paid: recorded (refundable), and swept like the ether.
    const tokenHash = await payToken(eth.address, 1_000_000n)
    expect(await receiptOf(paymentId, tokenHash)).toMatchObject({ value: "1000000", refundableValue: "1000000" })
    await eventually(async () => [await etherOf(eth.address), await world().balanceOf(eth.address)], ([coin, token]) => coin === 0n && token === 0n)
    const lines = await eventually(reconcile, (read) => read(world().chain.usdcAssetId, eth.address)?.ledger === 0n && read(ethAsset(), eth.address)?.ledger === 0n)
    expect(lines(world().chain.usdcAssetId, eth.address)).toMatchObject({ ledger: 0n, chain: 0n })
    expect(lines(ethAsset(), eth.address)).toMatchObject({ ledger: 0n, chain: 0n })
  })

  it("too little ether: underpaid, the deposit asks for the rest in wei, and the rest pays it; everything swept", async () => {
    const paymentId = await newPayment()
    const eth = await ethOption(paymentId)
    const asked = BigInt(eth.amount.value)
    const part = asked / 3n
    const first = await sendEther(eth.address, part, 6)
    expect(await receiptOf(paymentId, first)).toMatchObject({ outcome: "underpaid", shortfall: (asked - part).toString() })
    expect((await record(paymentId)).status).toBe("requires_action")
    const rest = await ethOption(paymentId)
    expect(rest.amount.value).toBe((asked - part).toString())
    expect(rest.uri).toBe(`ethereum:${eth.address}@${world().chain.node.chainId}?value=${asked - part}`)
    await sendEther(eth.address, asked - part, 6)
    await statusBecomes(paymentId, "succeeded")
    await eventually(() => etherOf(eth.address), (balance) => balance === 0n)
    await eventually(() => etherSweeps(eth.address), (sweeps) => sweeps.reduce((sum, s) => sum + s.amount, 0n) === asked)
  })

  it("an address the first factory handed out before the upgrade stays the payment's, for tokens only: watched and swept through that factory; ether there is not credited", async () => {
    const paymentId = await newPayment()
    const old = DepositAddresses.depositAddress(firstFactory, paymentId, 1)
    await server.run(
      DepositStore.use((store) => store.ensure({ chainId: chainId(), address: old.toLowerCase(), paymentId: paymentId as PaymentId, createdAt: Date.now() })).pipe(
        Effect.provide(SqlPersistence.layer)
      )
    )
    const offered = await options(paymentId)
    expect(offered.map((o) => [o.asset, o.address])).toEqual([[world().chain.usdcAssetId, old]])
    // Ether there could never be swept (the first forwarder has no way to send it): it pays nothing.
    const etherHash = await sendEther(old, 10n ** 15n, 7)
    const tokenHash = await payToken(old, 12_500_000n)
    expect(await receiptOf(paymentId, tokenHash)).toMatchObject({ outcome: "paid", value: "12500000" })
    await statusBecomes(paymentId, "succeeded")
    await eventually(() => world().balanceOf(old), (balance) => balance === 0n)
    const logs = await world().client.getLogs({ address: firstFactory, fromBlock: 0n, toBlock: "latest" })
    expect(parseEventLogs({ abi: Contracts.DepositFactory.abi, eventName: "Swept", logs }).filter((l) => l.args.forwarder === old).map((l) => l.args.amount))
      .toEqual([12_500_000n])
    expect((await receipts(paymentId)).map((r) => r.txHash)).not.toContain(etherHash.toLowerCase())
    const lines = await eventually(reconcile, (read) => read(world().chain.usdcAssetId, old)?.ledger === 0n)
    expect(lines(world().chain.usdcAssetId, old)).toMatchObject({ ledger: 0n, chain: 0n })
    // No coin line at a first-version address: the ledger keeps no ether there.
    expect(lines(ethAsset(), old)).toBeUndefined()
  })
})
