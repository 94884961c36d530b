/**
 * The chain watcher against transfers that do not come as one plain call to the token, on anvil:
 * a buyer executing their own EIP-3009 authorization through a forwarder or a multicall (the
 * payment's own transfer, credited once, nothing refundable), and one transaction paying two
 * deposit addresses (both credited, and the watcher goes on to later deposits).
 */
import { Chain, GatewayServices, SqlChainWork, SqlDepositStore, SqlPersistence, WorkerPorts } from "@paygate/adapters"
import { ProcessMetrics } from "@paygate/observability"
import { DepositSweeper, DepositSweeps, Executions, ReceiptRefunds, ReceiptStore } from "@paygate/domain"
import { Effect, Fiber, Layer, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type Address, createWalletClient, encodeFunctionData, erc20Abi, getAddress, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutUseCases } from "../../../test/support/ChainJobs.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { watcherJob } from "../../../test/support/WatcherJob.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import {
  defaultExecutorSettings,
  defaultPayoutSettings,
  depositSweepJob,
  ExecutorJob,
  ExecutorSettings,
  PayoutSettings,
  payoutsWith
} from "../src/index.ts"

const { anvilAccount, ChainConfig, Contracts, LocalWallet, ViemDepositSweeper } = Chain

const world = localChainForFile()
/** 12.50 USD in TUSDC base units (6 decimals, pegged 1:1). */
const amount = 12_500_000n
const buyer = anvilAccount(6)

const fast = { ...defaultPayoutSettings, pollIntervalMs: 50, pendingRecheckMs: 100, unknownRecheckMs: 300, retryMs: 200, leaseMs: 1_500 }
const executorJob = ExecutorJob.pipe(
  Layer.provide(Layer.mergeAll(Executions.layer, SqlChainWork.layer)),
  Layer.provide(Layer.succeed(ExecutorSettings, { ...defaultExecutorSettings, pollIntervalMs: 50, pendingRecheckMs: 100 }))
)
const payoutJobs = payoutsWith(Layer.succeed(PayoutSettings, fast)).pipe(Layer.provide(payoutUseCases()), Layer.provide(WorkerPorts.payoutPorts))
const sweepJob = depositSweepJob.pipe(
  Layer.provide(DepositSweeps.layer),
  Layer.provide(Layer.mergeAll(SqlPersistence.layer, ViemDepositSweeper.layer as Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig>)),
  Layer.provide(Layer.succeed(PayoutSettings, fast))
)

/** Sends `data` to `to` from anvil account `index` and waits for it; throws if it reverted. */
const sendCall = async (index: number, to: Address, data: Hex): Promise<Hex> => {
  const wallet = createWalletClient({ account: privateKeyToAccount(anvilAccount(index).privateKey), transport: http(world().chain.node.rpcUrl) })
  const hash = await wallet.sendTransaction({ chain: null, to, data, gas: 500_000n })
  const receipt = await world().client.waitForTransactionReceipt({ hash })
  if (receipt.status !== "success") throw new Error(`${hash} reverted`)
  return hash
}

/** Deploys creation `data` from anvil account 0; answers the contract's address. */
const deploy = async (data: Hex): Promise<Address> => {
  const wallet = createWalletClient({ account: privateKeyToAccount(anvilAccount(0).privateKey), transport: http(world().chain.node.rpcUrl) })
  const hash = await wallet.sendTransaction({ chain: null, data, gas: 3_000_000n })
  const receipt = await world().client.waitForTransactionReceipt({ hash })
  if (receipt.contractAddress == null) throw new Error("nothing deployed")
  return receipt.contractAddress
}

const transferCall = (to: Address, value: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] })
const multicall = (calls: ReadonlyArray<{ readonly target: Address; readonly data: Hex }>) =>
  encodeFunctionData({ abi: Contracts.TestMulticall.abi, functionName: "aggregate", args: [calls] })

forEachDatabase("Wrapped and batched transfers (anvil)", (database) => {
  let chains: Chain.ChainConfig.Chains
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(world().settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let partner: TestPartner
  let walletKey: string
  let merchantId: string
  let forwarder: Address
  let batcher: Address
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const token = () => world().chain.contracts.usdc
  const launch = <E>(layer: Layer.Layer<never, E, Services>) => server.run(Effect.forkDetach(Layer.launch(layer)))
  const api = (method: string, path: string, body?: unknown, apiKey = partner.sandbox) =>
    server.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
  const gateway = (method: string, path: string, body: unknown) => server.request(method, path, { apiKey: walletKey, body })

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(world().settings()))
    jobs.push(await launch(payoutJobs), await launch(watcherJob(chains)), await launch(sweepJob))
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
    merchantId = await server.merchant(partner.sandbox)
    forwarder = await deploy(Contracts.TestForwarder.bytecode)
    batcher = await deploy(Contracts.TestMulticall.bytecode)
  }, 120_000)
  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  const status = async (paymentId: string) => (await api("GET", `/v1/payments/${paymentId}`)).body.status as string
  // Generous: on a loaded machine (the whole suite) a watcher round behind a quarantined log can take long.
  const statusBecomes = (paymentId: string, wanted: string) => eventually(() => status(paymentId), (s) => s === wanted, 90_000)
  /** Every receipt of transaction `hash`, whoever owns it (read from the table). */
  const receiptsOfTx = (hash: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly id: string; readonly outcome: string; readonly payment_id: string | null; readonly value: string }>`
        SELECT id, outcome, payment_id, value::text AS value FROM chain_receipts WHERE tx_hash = ${hash.toLowerCase()} ORDER BY log_index`
    }).pipe(Effect.orDie))

  /**
   * A pull payment confirmed with the buyer's signed authorization, while no executor runs: the
   * buyer then has the only chance to use it. Answers the `transferWithAuthorization` calldata.
   */
  const confirmedPull = async () => {
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    const options = await gateway("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [`${world().chain.chainId}:${buyer.address}`] })
    const option = options.body.options.find((o: any) => o.actions[0]?.data?.method === "eth_signTypedData_v4")
    expect(option).toBeDefined()
    const signature = await LocalWallet.signOption(option, buyer.privateKey)
    const confirmed = await gateway("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId: option.id,
      results: [{ type: "walletRpc", data: [signature] }],
      collectedData: null
    })
    expect(confirmed.status).toBe(200)
    const m = JSON.parse(option.actions[0].data.params[1]).message
    const data = encodeFunctionData({
      abi: Contracts.TestUsdc.abi,
      functionName: "transferWithAuthorization",
      args: [m.from, m.to, BigInt(m.value), BigInt(m.validAfter), BigInt(m.validBefore), m.nonce, signature]
    })
    return { paymentId, data }
  }

  /** The payment's own transfer, submitted by the buyer in `hash`: paid once, nothing unmatched or refundable. */
  const creditedOnce = async (paymentId: string, hash: Hex) => {
    const recorded = await eventually(() => receiptsOfTx(hash), (rows) => rows.length > 0)
    // The executor comes after the buyer: it finds the authorization used and follows that transaction.
    const executor = await launch(executorJob)
    try {
      await statusBecomes(paymentId, "succeeded")
    } finally {
      await Effect.runPromise(Fiber.interrupt(executor))
    }
    expect(recorded).toEqual([{ id: expect.any(String), outcome: "paid", payment_id: paymentId, value: amount.toString() }])
    const events = (await outboxEventsOf(server, paymentId)).map((e) => e.type)
    expect(events).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
    expect((await api("POST", `/v1/receipts/${recorded[0]!.id}/refund`)).body.code).toBe("invalid_state")
    const other = await server.partner()
    expect((await api("GET", "/v1/receipts?outcome=unmatched&limit=100", undefined, other.sandbox)).body.data
      .filter((r: any) => r.txHash === hash.toLowerCase())).toEqual([])
  }

  it("an authorization executed through a forwarder is the payment's own transfer: credited once, nothing refundable", async () => {
    const { data, paymentId } = await confirmedPull()
    const hash = await sendCall(5, forwarder, encodeFunctionData({ abi: Contracts.TestForwarder.abi, functionName: "forward", args: [token(), data] }))
    await creditedOnce(paymentId, hash)
  })

  it("an authorization executed inside a multicall, next to other calls: the same", async () => {
    const { data, paymentId } = await confirmedPull()
    const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [buyer.address] })
    const hash = await sendCall(5, batcher, multicall([{ target: token(), data: balanceOf }, { target: token(), data }]))
    await creditedOnce(paymentId, hash)
  })

  const depositAddress = async (paymentId: string) => {
    const answer = await gateway("POST", `/v1/gateway/payment/${paymentId}/deposit`, {})
    expect(answer.status).toBe(200)
    return answer.body.options[0].address as Address
  }

  it("one transaction paying two deposit addresses credits both, and later deposits are still credited", async () => {
    const executor = await launch(executorJob)
    try {
      const [a, b, later] = await Promise.all([1, 2, 3].map(async () => (await server.payment(partner.sandbox, merchantId)).paymentId as string))
      const [toA, toB, toLater] = await Promise.all([a!, b!, later!].map(depositAddress))
      await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: token(), to: batcher, value: 2n * amount })
      const batch = await sendCall(4, batcher, multicall([{ target: token(), data: transferCall(toA!, amount) }, { target: token(), data: transferCall(toB!, amount) }]))
      await statusBecomes(a!, "succeeded")
      await statusBecomes(b!, "succeeded")
      expect((await receiptsOfTx(batch)).map((r) => [r.outcome, r.payment_id]).sort()).toEqual([["paid", a], ["paid", b]].sort())
      await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: token(), to: toLater!, value: amount })
      await statusBecomes(later!, "succeeded")
      for (const address of [toA!, toB!, toLater!]) await eventually(() => world().balanceOf(address), (balance) => balance === 0n)
    } finally {
      await Effect.runPromise(Fiber.interrupt(executor))
    }
  })

  /** Every open quarantined log of transaction `hash`, and every resolved one. */
  const quarantineOf = (hash: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly reason: string; readonly resolution: string | null }>`
        SELECT reason, resolution FROM chain_quarantine WHERE tx_hash = ${hash.toLowerCase()}`
    }).pipe(Effect.orDie))
  const quarantinedCount = () =>
    Effect.runPromise(Effect.map(Metric.value(ProcessMetrics.quarantinedTransfers(world().chain.chainId)), (state) => state.count))

  it("a log the store refuses is quarantined with an alert, the watcher goes on, and it is recorded once the store takes it", async () => {
    const executor = await launch(executorJob)
    try {
      // The store refuses one amount: the log that carries it cannot be recorded.
      await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`CREATE FUNCTION refuse_4242() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.value = 4242 THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`)
        yield* sql.unsafe(`CREATE TRIGGER refuse_4242 BEFORE INSERT ON chain_receipts FOR EACH ROW EXECUTE FUNCTION refuse_4242()`)
      }).pipe(Effect.orDie))
      const before = await quarantinedCount()
      const [refused, paid] = await Promise.all([1, 2].map(async () => (await server.payment(partner.sandbox, merchantId)).paymentId as string))
      const [toRefused, toPaid] = await Promise.all([refused!, paid!].map(depositAddress))
      // Both in one transaction: the second log is credited though the first cannot be recorded.
      await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: token(), to: batcher, value: amount + 4242n })
      const batch = await sendCall(4, batcher, multicall([{ target: token(), data: transferCall(toRefused!, 4242n) }, { target: token(), data: transferCall(toPaid!, amount) }]))
      await statusBecomes(paid!, "succeeded")
      expect(await eventually(() => quarantineOf(batch), (rows) => rows.length === 1, 90_000)).toEqual([{ reason: expect.stringContaining("refused for the test"), resolution: null }])
      expect(await quarantinedCount()).toBe(before + 1)
      // Later transfers are still credited while it waits.
      const later = (await server.payment(partner.sandbox, merchantId)).paymentId as string
      await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: token(), to: await depositAddress(later), value: amount })
      await statusBecomes(later, "succeeded")
      await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`DROP TRIGGER refuse_4242 ON chain_receipts`)
      }).pipe(Effect.orDie))
      // Tried again on a later round: recorded once, as what it is (a part of the amount).
      await eventually(() => quarantineOf(batch), (rows) => rows[0]?.resolution === "recorded", 90_000)
      expect((await receiptsOfTx(batch)).map((r) => [r.outcome, r.payment_id, r.value]).sort()).toEqual([
        ["paid", paid, amount.toString()],
        ["underpaid", refused, "4242"]
      ].sort())
      expect(await status(refused!)).toBe("requires_action")
    } finally {
      await Effect.runPromise(Fiber.interrupt(executor))
    }
  }, 300_000)

  it("unmatched transfers into the collection address are the operator's: no partner sees or refunds them; the operator does", async () => {
    const stray = await sendTokenTransfer({
      rpcUrl: world().chain.node.rpcUrl,
      privateKey: anvilAccount(7).privateKey,
      token: token(),
      to: world().chain.collectionAddress,
      value: 777n
    })
    const receipt = await eventually(
      () => server.run(ReceiptStore.use((store) => store.list({ owner: "operator", after: null, limit: 100 }))),
      (list) => list.some((r) => r.txHash === stray.toLowerCase())
    ).then((list) => list.find((r) => r.txHash === stray.toLowerCase())!)
    const other = await server.partner()
    for (const key of [partner.sandbox, partner.live, other.sandbox, other.live]) {
      const listed = await api("GET", "/v1/receipts?outcome=unmatched&limit=100", undefined, key)
      expect(listed.status).toBe(200)
      expect(listed.body.data.filter((r: any) => r.txHash === stray.toLowerCase())).toEqual([])
      expect((await api("POST", `/v1/receipts/${receipt.id}/refund`, undefined, key)).body.code).toBe("payment_not_found")
    }
    // The operator's refund (`paygate-admin receipt refund`): once.
    const asOperator = () =>
      server.run(Effect.flip(ReceiptRefunds.use((r) => r.requestAsOperator(receipt.id)).pipe(Effect.provide(ReceiptRefunds.layer))))
    const refunded = await server.run(ReceiptRefunds.use((r) => r.requestAsOperator(receipt.id)).pipe(Effect.provide(ReceiptRefunds.layer)))
    expect(refunded.refund).toMatchObject({ status: "pending", value: 777n, requestedBy: null })
    expect((await asOperator())._tag).toBe("AlreadyRefunded")
  })

  it("a deposit arriving more than 30 days after its address was handed out is still recorded and swept", async () => {
    const executor = await launch(executorJob)
    try {
      const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
      const address = await depositAddress(paymentId)
      await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE deposit_addresses SET created_at = created_at - ${31 * 86_400_000}::bigint WHERE payment_id = ${paymentId}`
      }).pipe(Effect.orDie))
      await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: token(), to: address, value: amount })
      await statusBecomes(paymentId, "succeeded")
      await eventually(() => world().balanceOf(address), (balance) => balance === 0n)
    } finally {
      await Effect.runPromise(Fiber.interrupt(executor))
    }
  })

  it("a token the service does not accept, at a deposit address: recorded as the operator's, swept when the operator asks", async () => {
    const other = await deploy(Contracts.TestUsdc.bytecode)
    await sendCall(0, other, encodeFunctionData({ abi: Contracts.TestUsdc.abi, functionName: "mint", args: [anvilAccount(4).address, 5_000n] }))
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    const address = await depositAddress(paymentId)
    const hash = await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(4).privateKey, token: other, to: address, value: 5_000n })
    const asset = `${world().chain.chainId}/erc20:${getAddress(other)}`
    const recorded = await eventually(() => receiptsOfTx(hash), (rows) => rows.length === 1)
    expect(recorded).toEqual([{ id: expect.any(String), outcome: "unmatched", payment_id: null, value: "5000" }])
    // Not the partner's: nothing it can refund in a token nobody configured.
    expect((await api("GET", "/v1/receipts?outcome=unmatched&limit=100")).body.data.filter((r: any) => r.txHash === hash.toLowerCase())).toEqual([])
    expect(await status(paymentId)).toBe("requires_action")
    const balanceOf = (holder: Address) =>
      world().client.readContract({ address: other, abi: erc20Abi, functionName: "balanceOf", args: [holder] })
    const collected = await balanceOf(world().chain.collectionAddress)
    const executor = await launch(executorJob)
    try {
      // What `paygate-admin deposit sweep` asks for.
      expect(await server.run(SqlDepositStore.sweepOnRequest({ chainId: world().chain.chainId, address, asset }))).toBe(true)
      await eventually(() => balanceOf(address), (balance) => balance === 0n)
      expect(await balanceOf(world().chain.collectionAddress)).toBe(collected + 5_000n)
      // And in the ledger, once the sweep is recorded: the deposit address holds nothing of it, the collection address it all.
      const held = () =>
        server.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ readonly kind: string; readonly balance: string }>`SELECT kind, balance::text AS balance FROM ledger_balances
            WHERE asset = ${asset} AND kind IN ('collection', 'deposit') ORDER BY kind`).pipe(Effect.orDie))
      expect(await eventually(held, (rows) => rows.some((r) => r.kind === "collection" && r.balance === "5000"))).toEqual([
        { kind: "collection", balance: "5000" },
        { kind: "deposit", balance: "0" }
      ])
    } finally {
      await Effect.runPromise(Fiber.interrupt(executor))
    }
    expect(await server.run(SqlDepositStore.sweepOnRequest({ chainId: world().chain.chainId, address: `0x${"12".repeat(20)}`, asset }))).toBe(false)
  })
})
