/**
 * Per-payment deposit addresses on anvil, on PGlite and PostgreSQL: the gateway's
 * deposit operation, a plain `transfer` from an account that never talks to the service paying a
 * payment (same events as any payment, funds swept to the collection address and settled to the
 * merchant's destination), under-, over- and late payments into a deposit address, two payments
 * never sharing an address, a worker killed between sending a sweep and recording its outcome
 * (and between recording and broadcasting it), and 50 paid payments swept in one transaction.
 */
import { Chain, GatewayServices, SqlChainWork, SqlPersistence, SqlQuoteStore, WorkerPorts } from "@paygate/adapters"
import { DepositSweep, DepositSweeper, DepositSweeps, Executions, IdGenerator, type PaymentId, PayoutRepository, Reconciliation } from "@paygate/domain"
import { Effect, Fiber, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type Address, parseAbiItem, parseEventLogs } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutUseCases } from "../../../test/support/ChainJobs.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { paymentReads } from "../../../test/support/PaymentReads.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { watcherJob } from "../../../test/support/WatcherJob.ts"
import {
  defaultExecutorSettings,
  defaultPayoutSettings,
  depositSweepJob,
  ExecutorJob,
  ExecutorSettings,
  PayoutSettings,
  payoutsWith
} from "../src/index.ts"
import { eventually as waitUntil } from "../../../test/support/Eventually.ts"

const { anvilAccount, ChainConfig, Contracts, DepositAddresses, TransferLogs, ViemDepositSweeper } = Chain

const world = localChainForFile()
/** 12.50 USD in TUSDC base units (6 decimals, pegged 1:1). */
const amount = 12_500_000n

const fast = { ...defaultPayoutSettings, pollIntervalMs: 50, pendingRecheckMs: 100, unknownRecheckMs: 300, retryMs: 200, leaseMs: 1_500 }
const executorJob = ExecutorJob.pipe(
  Layer.provide(Layer.mergeAll(Executions.layer, SqlChainWork.layer)),
  Layer.provide(Layer.succeed(ExecutorSettings, { ...defaultExecutorSettings, pollIntervalMs: 50, pendingRecheckMs: 100 }))
)
const payoutJobs = payoutsWith(Layer.succeed(PayoutSettings, fast)).pipe(Layer.provide(payoutUseCases()), Layer.provide(WorkerPorts.payoutPorts))
const sweepJob = (sweeper: Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig> = ViemDepositSweeper.layer) =>
  depositSweepJob.pipe(Layer.provide(DepositSweeps.layer), Layer.provide(Layer.mergeAll(SqlPersistence.layer, sweeper)), Layer.provide(Layer.succeed(PayoutSettings, fast)))

const eventually = <A>(read: () => Promise<A>, done: (a: A) => boolean, withinMs = 45_000) => waitUntil(read, done, withinMs)

forEachDatabase("Deposit addresses (anvil)", (database) => {
  let chains: Chain.ChainConfig.Chains
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(world().settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let partner: TestPartner
  let walletKey: string
  let settling: string
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []
  let sweeper: Fiber.Fiber<unknown, unknown> | undefined
  let watcher: Fiber.Fiber<unknown, unknown> | undefined

  const chainId = () => world().chain.chainId
  const factory = () => world().chain.contracts.depositFactory
  const token = () => world().chain.contracts.usdc
  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const launch = <E>(layer: Layer.Layer<never, E, Services>) => server.run(Effect.forkDetach(Layer.launch(layer)))
  const startSweeper = async (layer = sweepJob()) => {
    sweeper = await launch(layer)
  }
  const stopSweeper = async () => {
    if (sweeper !== undefined) await Effect.runPromise(Fiber.interrupt(sweeper))
    sweeper = undefined
  }

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(world().settings()))
    jobs.push(await launch(executorJob), await launch(payoutJobs))
    watcher = await launch(watcherJob(chains))
    await startSweeper()
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
    settling = (await settlingMerchant()).merchantId
  }, 120_000)
  afterAll(async () => {
    await stopSweeper()
    if (watcher !== undefined) await Effect.runPromise(Fiber.interrupt(watcher))
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  const newPayment = async (merchantId = settling) => (await server.payment(partner.sandbox, merchantId)).paymentId as string
  /** A merchant of its own settling to a destination of its own (balances unaffected by other tests' settlements). */
  const settlingMerchant = async () => {
    const merchantId = await server.merchant(partner.sandbox)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const registered = await api("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: `${chainId()}:${to}` }]
    })
    expect(registered.status).toBe(201)
    return { merchantId, destination: to }
  }
  const deposit = (paymentId: string, body?: unknown) =>
    server.request("POST", `/v1/gateway/payment/${paymentId}/deposit`, { apiKey: walletKey, ...(body === undefined ? {} : { body }) })
  const addressOf = async (paymentId: string) => {
    const answer = await deposit(paymentId)
    expect(answer.status).toBe(200)
    return answer.body.options[0].address as Address
  }
  /** A plain ERC-20 transfer of TUSDC from anvil account `index` (never an API caller), mined and succeeded. */
  const pay = (to: Address, value: bigint, index = 3) =>
    sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(index).privateKey, token: token(), to, value })
  const { record, receiptOf, receipts, statusBecomes } = paymentReads(server, () => partner.sandbox)
  const sweptEmpty = (address: Address) => eventually(() => world().balanceOf(address), (balance) => balance === 0n)
  const eventsOf = (paymentId: string) => outboxEventsOf(server, paymentId)
  const sweepsOf = (paymentId: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly marked_version: number; readonly swept_version: number; readonly tx_hash: string | null }>`SELECT
        marked_version, swept_version, tx_hash FROM deposit_sweeps WHERE payment_id = ${paymentId}`
    }).pipe(Effect.orDie))
  /** The factory's `Swept` events of `address` so far. */
  const sweptEvents = async (address: Address) => {
    const logs = await world().client.getLogs({ address: factory(), fromBlock: 0n, toBlock: "latest" })
    return parseEventLogs({ abi: Contracts.DepositFactoryV2.abi, eventName: "Swept", logs }).filter((log) => log.args.forwarder === address)
  }

  it("POST /deposit: the payment's own address, the amount and its EIP-681 request; the same on repeated calls", async () => {
    const paymentId = await newPayment()
    const first = await deposit(paymentId)
    expect(first.status).toBe(200)
    const address = DepositAddresses.depositAddress(factory(), paymentId)
    expect(first.body).toEqual({
      options: [{
        id: expect.any(String),
        kind: "deposit",
        network: chainId(),
        asset: world().chain.usdcAssetId,
        address,
        amount: {
          unit: `caip19/${world().chain.usdcAssetId}`,
          value: "12500000",
          display: expect.objectContaining({ assetSymbol: "TUSDC", decimals: 6, networkName: "Anvil (local)" })
        },
        uri: `ethereum:${token()}@${world().chain.node.chainId}/transfer?address=${address}&uint256=12500000`,
        expiresAt: null
      }]
    })
    const again = await deposit(paymentId, {})
    expect(again.body).toEqual(first.body)
    // A deposit option is paid by a transfer, never fetched or confirmed.
    const optionId = first.body.options[0].id
    expect((await server.request("POST", `/v1/gateway/payment/${paymentId}/fetch`, { apiKey: walletKey, body: { optionId, data: "" } })).body.code)
      .toBe("invalid_params")
    const confirm = await server.request("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      apiKey: walletKey,
      body: { optionId, results: [{ type: "walletRpc", data: [`0x${"ab".repeat(32)}`] }], collectedData: null }
    })
    expect(confirm.body.code).toBe("invalid_params")
    // Only while the payment waits for the buyer.
    expect((await deposit("pay_00000000000000000000000000")).status).toBe(404)
    await server.expireNow(paymentId)
    expect((await deposit(paymentId)).body.code).toBe("payment_expired")
    const cancelled = await newPayment()
    await api("POST", `/v1/payments/${cancelled}/cancel`)
    expect((await deposit(cancelled)).body.code).toBe("invalid_state")
  })

  it("two payments never share an address", async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => newPayment()))
    const addresses = await Promise.all(ids.map(addressOf))
    expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(ids.length)
    expect(await Promise.all(ids.map(addressOf))).toEqual(addresses)
  })

  it("a plain transfer from an account that never called the API pays: succeeded, same events, swept and settled to the merchant", async () => {
    const { destination, merchantId } = await settlingMerchant()
    const paymentId = await newPayment(merchantId)
    const address = await addressOf(paymentId)
    const hash = await pay(address, amount)
    expect(await receiptOf(paymentId, hash)).toMatchObject({ outcome: "paid", value: "12500000", from: `${chainId()}:${anvilAccount(3).address}` })
    const succeeded = await statusBecomes(paymentId, "succeeded")
    expect(succeeded.transaction).toMatchObject({ chainId: chainId(), hash: hash.toLowerCase() })
    expect(succeeded.buyer).toEqual({ accountCaip10: `${chainId()}:${anvilAccount(3).address}` })
    const merchantView = await server.request("GET", `/v1/merchant/payment/${paymentId}/status`, {
      apiKey: partner.sandbox,
      headers: { "merchant-id": merchantId }
    })
    expect(merchantView.body).toMatchObject({ status: "succeeded", isFinal: true })
    await sweptEmpty(address)
    expect(await world().client.getCode({ address })).toMatch(/^0x[0-9a-f]+$/)
    expect((await sweptEvents(address)).map((log) => log.args.amount)).toEqual([amount])
    // Settled once the deposit reached the collection address.
    const settled = await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(settled.settlement.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await world().balanceOf(destination)).toBe(amount)
    // The same events as any payment (one second may hold several: compared as a set).
    expect((await eventsOf(paymentId)).map((e) => e.type).sort()).toEqual([
      "payment.created",
      "payment.processing",
      "payment.settled",
      "payment.succeeded"
    ])
  })

  it("underpaid, overpaid and late transfers into deposit addresses: the rules of any transfer, everything swept, a late one refunded", async () => {
    const [under, over, late] = [await newPayment(), await newPayment(), await newPayment()]
    const [toUnder, toOver, toLate] = [await addressOf(under), await addressOf(over), await addressOf(late)]
    await server.expireNow(late)
    // Late is judged by the block's time: it must be past the payment's expiry.
    const latest = await world().client.getBlock()
    await world().client.request({
      method: "evm_setNextBlockTimestamp" as never,
      params: [Math.max(Number(latest.timestamp) + 1, Math.ceil(Date.now() / 1000) + 1)] as never
    })
    const lateHash = await pay(toLate, amount, 5)
    const underHash = await pay(toUnder, 2_500_000n)
    const overHash = await pay(toOver, 13_000_000n)

    expect(await receiptOf(under, underHash)).toMatchObject({ outcome: "underpaid", paymentStatus: "requires_action", shortfall: "10000000" })
    expect((await record(under)).status).toBe("requires_action")
    expect((await eventsOf(under)).map((e) => e.type)).toEqual(["payment.created", "payment.transfer_received"])
    // Open for the rest: the deposit operation asks for what is missing, and the rest pays it.
    const missing = (await deposit(under)).body.options[0]
    expect(missing.amount.value).toBe("10000000")
    expect(missing.uri).toMatch(/&uint256=10000000$/)
    const rest = await pay(toUnder, amount - 2_500_000n)
    // anvil mines only when a transaction comes; a block after it, as a live chain would have. (Once,
    // under load, this transfer was read only when the next test's transactions made new blocks.)
    await world().client.request({ method: "anvil_mine" as never, params: ["0x1"] as never })
    // Once more, under load, this transfer was never read: what the chain and the watcher held then.
    const restReceipt = await receiptOf(under, rest).catch(async (error) => {
      const mined = await world().client.getTransactionReceipt({ hash: rest })
      const [cursors, addresses] = await server.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all([sql`SELECT * FROM chain_cursors`, sql`SELECT address, created_at FROM deposit_addresses WHERE payment_id = ${under}`])))
      const logs = await world().client.getLogs({
        address: token(),
        event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
        args: { to: toUnder },
        fromBlock: mined.blockNumber,
        toBlock: mined.blockNumber
      })
      const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v))
      throw new Error(`${error.message}\nthe transfer: ${mined.status} in block ${mined.blockNumber} with ${mined.logs.length} log(s), ${logs.length} found by eth_getLogs now; head ${await world().client.getBlockNumber({ cacheTime: 0 })}; cursors ${json(cursors)}; address ${json(addresses)}`)
    })
    expect(restReceipt).toMatchObject({ outcome: "paid", expectedValue: "10000000" })
    await statusBecomes(under, "succeeded")
    expect(await receiptOf(under, underHash)).toMatchObject({ outcome: "paid", refundableValue: "0" })

    expect(await receiptOf(over, overHash)).toMatchObject({ outcome: "overpaid", refundableValue: "500000", value: "13000000" })
    await statusBecomes(over, "succeeded")

    const lateReceipt = await receiptOf(late, lateHash)
    expect(lateReceipt).toMatchObject({ outcome: "late", refundableValue: "12500000", from: `${chainId()}:${anvilAccount(5).address}` })
    expect((await record(late)).status).toBe("expired")
    expect((await eventsOf(late)).map((e) => e.type)).toEqual(["payment.created", "payment.transfer_received"])

    // Whatever the outcome, what reached a deposit address is swept to the collection address.
    for (const address of [toUnder, toOver, toLate]) await sweptEmpty(address)
    expect((await sweptEvents(toUnder)).reduce((sum, log) => sum + log.args.amount, 0n)).toBe(amount)
    expect((await sweptEvents(toOver)).reduce((sum, log) => sum + log.args.amount, 0n)).toBe(13_000_000n)
    // ... from where the late transfer goes back to its sender, like any receipt.
    const sender = anvilAccount(5).address
    const before = await world().balanceOf(sender)
    expect((await api("POST", `/v1/receipts/${lateReceipt.receiptId}/refund`)).status).toBe(200)
    await eventually(() => world().balanceOf(sender), (balance) => balance === before + amount)
  })

  it("a payment paid in parts by two senders is refunded part by part: each sender gets back what they sent", async () => {
    // A merchant without a settlement destination: the funds wait at the collection address.
    const paymentId = await newPayment(await server.merchant(partner.sandbox))
    const address = await addressOf(paymentId)
    const [first, second] = [anvilAccount(7).address, anvilAccount(8).address]
    const before = [await world().balanceOf(first), await world().balanceOf(second)]
    await pay(address, 5_000_000n, 7)
    await eventually(() => receipts(paymentId), (list) => list.some((r) => r.outcome === "underpaid"))
    await pay(address, amount - 5_000_000n, 8)
    await statusBecomes(paymentId, "succeeded")
    expect((await receipts(paymentId)).map((r) => r.outcome)).toEqual(["paid", "paid"])

    const requested = await api("POST", "/v1/refunds", { paymentId })
    expect(requested.status).toBe(201)
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect([await world().balanceOf(first), await world().balanceOf(second)]).toEqual(before)
    const legs = await server.run(PayoutRepository.use((repo) => repo.listByPayment(paymentId as PaymentId)))
    expect(legs.map((p) => [p.kind, p.leg, p.recipient, p.value, p.status])).toEqual([
      ["refund", 0, `${chainId()}:${first}`, 5_000_000n, "completed"],
      ["refund", 1, `${chainId()}:${second}`, amount - 5_000_000n, "completed"]
    ])
  })

  /** A sweeper whose `send` dies, as a killed process would, at `when`. */
  const dyingSweeper = (when: "after broadcast" | "before broadcast") =>
    Layer.effect(
      DepositSweeper,
      Effect.map(ViemDepositSweeper.make, (real) => ({
        ...real,
        send: (deposits, record) =>
          when === "after broadcast"
            ? real.send(deposits, record).pipe(Effect.andThen(Effect.die(new Error("killed after broadcast"))))
            : real.send(deposits, (signed) => Effect.andThen(record(signed), Effect.die(new Error("killed before broadcast"))))
      }))
    )

  /** A paid payment whose deposit waits for its sweep (the sweeper stopped). */
  const paidAndMarked = async (merchantId: string) => {
    const paymentId = await newPayment(merchantId)
    const address = await addressOf(paymentId)
    await pay(address, amount)
    await statusBecomes(paymentId, "succeeded")
    await eventually(() => sweepsOf(paymentId), (rows) => rows.length === 1)
    return { paymentId, address }
  }

  for (const when of ["after broadcast", "before broadcast"] as const) {
    it(`a worker killed ${when === "after broadcast" ? "between sending a sweep and recording its outcome" : "between recording a sweep and broadcasting it"}: the next one finishes it, nothing moves twice`, async () => {
      await stopSweeper()
      const { destination, merchantId } = await settlingMerchant()
      const { paymentId, address } = await paidAndMarked(merchantId)
      const dying = await launch(sweepJob(dyingSweeper(when)))
      const recorded = await eventually(() => sweepsOf(paymentId), (rows) => rows[0]?.tx_hash !== null)
      if (when === "after broadcast") await sweptEmpty(address)
      await Effect.runPromise(Fiber.interrupt(dying))
      // Killed: the sweep is recorded, its outcome is not; the settlement waits for it.
      const [row] = await sweepsOf(paymentId)
      expect(row!.tx_hash).toBe(recorded[0]!.tx_hash)
      expect(row!.swept_version).toBeLessThan(row!.marked_version)
      expect(await world().balanceOf(address)).toBe(when === "after broadcast" ? 0n : amount)
      expect((await record(paymentId)).settlement).toBeNull()

      await startSweeper()
      await eventually(() => sweepsOf(paymentId), (rows) => rows[0]!.swept_version === rows[0]!.marked_version && rows[0]!.tx_hash === null)
      expect(await world().balanceOf(address)).toBe(0n)
      const swept = await sweptEvents(address)
      expect(swept.map((log) => [log.transactionHash, log.args.amount])).toEqual([[recorded[0]!.tx_hash, amount]])
      await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
      expect(await world().balanceOf(destination)).toBe(amount)
    })
  }

  it("a sweep included without moving the funds to the collection address is not counted: the deposit is swept again, then settled", async () => {
    await stopSweeper()
    const { destination, merchantId } = await settlingMerchant()
    const { paymentId, address } = await paidAndMarked(merchantId)
    // Its first sweep, recorded for this deposit, sweeps another (empty) deposit address: mined, moving nothing.
    let misdirected = false
    const misdirecting = Layer.effect(
      DepositSweeper,
      Effect.map(ViemDepositSweeper.make, (real) => ({
        ...real,
        send: (deposits, record) => {
          const other = `pay_${randomBytes(10).toString("hex")}` as PaymentId
          const sent = misdirected
            ? deposits
            : [new DepositSweep({ ...deposits[0]!, paymentId: other, address: DepositAddresses.depositAddress(factory(), other).toLowerCase() })]
          misdirected = true
          return real.send(sent, record)
        }
      }))
    )
    await startSweeper(sweepJob(misdirecting))
    try {
      await sweptEmpty(address)
      await eventually(() => sweepsOf(paymentId), (rows) => rows[0]!.swept_version === rows[0]!.marked_version && rows[0]!.tx_hash === null)
      expect(misdirected).toBe(true)
      // Two sweeps: the first moved nothing, the second all of it.
      expect((await sweptEvents(address)).map((log) => log.args.amount)).toEqual([amount])
      await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
      expect(await world().balanceOf(destination)).toBe(amount)
    } finally {
      await stopSweeper()
      await startSweeper()
    }
  })

  it("a watcher killed between recording a deposit's transfer and marking its sweep: the payment succeeds, its settlement waits for the rescan's mark and sweep", async () => {
    await Effect.runPromise(Fiber.interrupt(watcher!))
    const { destination, merchantId } = await settlingMerchant()
    const paymentId = await newPayment(merchantId)
    const address = await addressOf(paymentId)
    const hash = await pay(address, amount)
    // The dying watcher recorded the transfer (payment processing), then died before marking the deposit.
    const [watched] = TransferLogs.watchedChains(chains)
    await server.run(Effect.gen(function*() {
      const head = Number(yield* Effect.promise(() => world().client.getBlockNumber({ cacheTime: 0 })))
      const transfers = yield* Effect.orDie(TransferLogs.depositTransfersIn(watched!, [{ address, paymentId }], head, head))
      const { result } = yield* Effect.gen(function*() {
        return yield* (yield* Reconciliation).reconcile(transfers.find((t) => t.txHash === hash.toLowerCase())!)
      }).pipe(
        Effect.provide(Reconciliation.layer.pipe(
          Layer.provide(Layer.mergeAll(SqlPersistence.layer, SqlQuoteStore.layer, IdGenerator.layer)),
          Layer.provide(SecureRandom.layerWebCrypto)
        )),
        Effect.orDie
      )
      expect(result).toBe("recorded")
    }))
    await statusBecomes(paymentId, "succeeded")
    // Not settled from the collection address before the deposit is marked and swept there.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await sweepsOf(paymentId)).toEqual([])
    expect((await record(paymentId)).settlement).toBeNull()
    watcher = await launch(watcherJob(chains))
    await sweptEmpty(address)
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(await world().balanceOf(destination)).toBe(amount)
    expect((await receipts(paymentId)).filter((r) => r.txHash === hash.toLowerCase())).toHaveLength(1)
  })

  it("sweeps of 50 paid payments: deployed and swept in one transaction, each settled", async () => {
    await stopSweeper()
    const { destination, merchantId } = await settlingMerchant()
    const ids = await Promise.all(Array.from({ length: 50 }, () => newPayment(merchantId)))
    const addresses = await Promise.all(ids.map(addressOf))
    for (const address of addresses) await pay(address, amount, 4)
    for (const id of ids) await statusBecomes(id, "succeeded")
    await eventually(() => Promise.all(ids.map(sweepsOf)), (all) => all.every((rows) => rows.length === 1))
    await startSweeper()
    for (const address of addresses) await sweptEmpty(address)
    const swept = (await Promise.all(addresses.map(sweptEvents))).flat()
    expect(swept).toHaveLength(50)
    expect(new Set(swept.map((log) => log.transactionHash)).size).toBe(1)
    await eventually(() => Promise.all(ids.map(record)), (all) => all.every((r) => r.settlement?.status === "completed"), 90_000)
    expect(await world().balanceOf(destination)).toBe(50n * amount)
  }, 180_000)
})
