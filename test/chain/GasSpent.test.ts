/**
 * Gas the service pays, recorded on anvil: a pull payment's transaction (the executor's), its
 * settlement (the collection address's), a deposit sweep (the executor's), a receipt's refund (the
 * collection address's) and each of the executor's transactions of a payment sent again after one
 * reverted each record exactly what their receipts say, once, posted to the ledger as balanced
 * entries (the signer's native balance credited, the operator's gas expense debited); a repeated
 * observation adds nothing, and a signer's ledger account moves as its ether balance does.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { GasPaid, type Payment, PaymentRepository, ReceiptRefunds } from "@paygate/domain"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type Address, createTestClient, createWalletClient, encodeFunctionData, erc20Abi, type Hash, type Hex, http, parseEventLogs } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { executorJob, payoutJobs, sweepJob } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../support/TestServer.ts"
import { watcherJob } from "../support/WatcherJob.ts"

const { anvilAccount, ChainConfig, Contracts } = Chain

const world = localChainForFile()

interface GasRow {
  readonly operation: string
  readonly subject_id: string
  readonly tx_hash: string
  readonly payer: string
  readonly asset: string
  readonly gas_used: string
  readonly effective_gas_price: string
  readonly amount: string
}

forEachDatabase("Gas spent by the service (anvil)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(world().settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let partner: TestPartner
  let walletKey: string
  let settling: string
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const chainId = () => world().chain.chainId
  const caip10 = (address: string) => `${chainId()}:${address}`
  const native = () => `${chainId()}/slip44:60`
  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const record = async (paymentId: string) => (await api("GET", `/v1/payments/${paymentId}`)).body
  const launch = async (layer: Layer.Layer<never, unknown, Services>) => {
    jobs.push(await server.run(Effect.forkDetach(Layer.launch(layer as Layer.Layer<never, never, Services>))))
  }
  const query = <A extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
    server.run(Effect.gen(function*() {
      return yield* run(yield* SqlClient.SqlClient)
    }).pipe(Effect.orDie))
  const gasRows = (txHash: string) =>
    query<GasRow>((sql) => sql`SELECT operation, subject_id, tx_hash, payer, asset, gas_used::text, effective_gas_price::text, amount::text
      FROM gas_spent WHERE tx_hash = ${txHash.toLowerCase()}`)
  /** The gas ledger transactions of `txHash`: their entries as (kind, address, amount). */
  const gasEntries = (txHash: string) =>
    query<{ readonly kind: string; readonly address: string | null; readonly asset: string; readonly amount: string }>((sql) =>
      sql`SELECT a.kind, a.address, e.asset, e.amount::text FROM ledger_transactions t
        JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
        WHERE t.source = 'gas' AND t.source_id = ${`${chainId()}:${txHash.toLowerCase()}`} ORDER BY e.amount DESC`)
  const unbalanced = () =>
    query<{ readonly id: string }>((sql) => sql`SELECT transaction_id::text AS id FROM ledger_entries GROUP BY transaction_id, asset HAVING sum(amount) <> 0`)
  /** The ledger's balance of `signer`'s native coin (what its gas took: negative). */
  const signerLedger = async (signer: string) =>
    BigInt((await query<{ readonly balance: string }>((sql) =>
      sql`SELECT coalesce(sum(e.amount), 0)::text AS balance FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE a.kind = 'signer' AND a.address = ${signer.toLowerCase()} AND a.asset = ${native()}`))[0]!.balance)
  /** Waits until the jobs have nothing under way (an earlier test's settlement may still be being sent or confirmed). */
  const idle = () =>
    eventually(() =>
      query<{ readonly n: string }>((sql) =>
        sql`SELECT ((SELECT count(*) FROM payouts WHERE status = 'pending') + (SELECT count(*) FROM payments WHERE status = 'processing') +
          (SELECT count(*) FROM deposit_sweeps WHERE marked_version > swept_version) +
          (SELECT count(*) FROM chain_receipts WHERE refund ->> 'status' = 'pending'))::text AS n`), (rows) => rows[0]!.n === "0", 45_000)
  /** Runs `act` once the jobs are idle, then checks that `signer`'s ether went down by what its ledger account moved, and by something. */
  const expectSignerReconciles = async (signer: Address, act: () => Promise<void>) => {
    await idle()
    const [ether, ledger] = [await world().client.getBalance({ address: signer }), await signerLedger(signer)]
    await act()
    const spent = ether - await world().client.getBalance({ address: signer })
    expect(spent).toBeGreaterThan(0n)
    expect(await signerLedger(signer) - ledger).toBe(-spent)
  }

  /** Checks `txHash`'s recorded gas against its receipt, once, for `operation` of `subject`, paid by `payer`, and its ledger entries. */
  const expectGasOf = async (txHash: string, operation: string, subject: string, payer: Address) => {
    const receipt = await world().client.getTransactionReceipt({ hash: txHash as Hash })
    const paid = receipt.gasUsed * receipt.effectiveGasPrice
    expect(paid).toBeGreaterThan(0n)
    const rows = await eventually(() => gasRows(txHash), (r) => r.length > 0)
    expect(rows).toEqual([{
      operation,
      subject_id: subject,
      tx_hash: txHash.toLowerCase(),
      payer: payer.toLowerCase(),
      asset: native(),
      gas_used: receipt.gasUsed.toString(),
      effective_gas_price: receipt.effectiveGasPrice.toString(),
      amount: paid.toString()
    }])
    expect(await gasEntries(txHash)).toEqual([
      { kind: "gas_expense", address: null, asset: native(), amount: paid.toString() },
      { kind: "signer", address: payer.toLowerCase(), asset: native(), amount: (-paid).toString() }
    ])
  }

  beforeAll(async () => {
    const chains = await Effect.runPromise(ChainConfig.decode(world().settings()))
    await launch(executorJob)
    await launch(payoutJobs())
    await launch(watcherJob(chains))
    await launch(sweepJob)
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
    settling = await server.merchant(partner.sandbox, "Settling Shop")
    const registered = await api("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(privateKeyToAccount(generatePrivateKey()).address) }]
    })
    expect(registered.status).toBe(201)
  }, 120_000)

  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  it("a pull payment (the executor's transaction) and its settlement (the collection address's) record their receipts' gas, once", async () => {
    const payer = 1
    const paymentId = (await server.payment(partner.sandbox, settling)).paymentId as string
    const call = (path: string, body: unknown) => server.request("POST", `/v1/gateway/payment/${paymentId}/${path}`, { apiKey: walletKey, body })
    const [option] = (await call("options", { accounts: [caip10(anvilAccount(payer).address)] })).body.options
    const signature = await Chain.LocalWallet.signOption(option, anvilAccount(payer).privateKey)
    expect((await call("confirm", { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null })).body.status)
      .toBe("processing")
    const settled = await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed", 45_000)
    const [paid] = await query<{ readonly tx: string }>((sql) => sql`SELECT commitment::jsonb ->> 'txHash' AS tx FROM payments WHERE id = ${paymentId}`)
    await expectGasOf(paid!.tx, "payment", paymentId, anvilAccount(0).address)
    await expectGasOf(settled.settlement.txHash, "settlement", `${paymentId}:settlement:0`, world().chain.collectionAddress as Address)

    // Observed again (another worker's state change carrying the same receipt): nothing more is recorded or posted.
    const again = await server.run(Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const current = Option.getOrThrow(yield* repo.findById(paymentId as Payment["id"]))
      const receipt = yield* Effect.promise(() => world().client.getTransactionReceipt({ hash: paid!.tx as Hash }))
      const gas = new GasPaid({
        chainId: chainId(),
        asset: native(),
        txHash: paid!.tx,
        payer: receipt.from,
        gasUsed: receipt.gasUsed,
        effectiveGasPrice: receipt.effectiveGasPrice
      })
      const next = new (current.constructor as typeof Payment)({ ...current, stateVersion: current.stateVersion + 1 })
      return yield* Effect.orDie(repo.update(next, [], gas))
    }))
    expect(again).toBe(true)
    await expectGasOf(paid!.tx, "payment", paymentId, anvilAccount(0).address)
    expect(await unbalanced()).toEqual([])
  }, 90_000)

  it("a deposit sweep (the executor's transaction) records its receipt's gas once; entries balance", async () => {
    const paymentId = (await server.payment(partner.sandbox, settling)).paymentId as string
    const deposit = await server.request("POST", `/v1/gateway/payment/${paymentId}/deposit`, { apiKey: walletKey })
    expect(deposit.status).toBe(200)
    const address = deposit.body.options[0].address as Address
    await sendTokenTransfer({
      rpcUrl: world().chain.node.rpcUrl,
      privateKey: anvilAccount(3).privateKey,
      token: world().chain.contracts.usdc,
      to: address,
      value: BigInt(deposit.body.options[0].amount.value)
    })
    const sweep = await eventually(async () => {
      const logs = await world().client.getLogs({ address: world().chain.contracts.depositFactory, fromBlock: 0n, toBlock: "latest" })
      return parseEventLogs({ abi: Contracts.DepositFactoryV2.abi, eventName: "Swept", logs }).filter((log) => log.args.forwarder === address)
    }, (events) => events.length > 0, 45_000)
    const txHash = sweep[0]!.transactionHash
    await expectGasOf(txHash, "sweep", txHash.toLowerCase(), anvilAccount(0).address)
    expect(await unbalanced()).toEqual([])
  }, 90_000)

  it("an unmatched transfer refunded to its sender: the collection address's refund records its gas once; its ledger account moves as its ether", async () => {
    const collection = world().chain.collectionAddress as Address
    const sent = await sendTokenTransfer({
      rpcUrl: world().chain.node.rpcUrl,
      privateKey: anvilAccount(3).privateKey,
      token: world().chain.contracts.usdc,
      to: collection,
      value: 4_321n
    })
    const [receipt] = await eventually(
      () => query<{ readonly id: string }>((sql) => sql`SELECT id FROM chain_receipts WHERE tx_hash = ${sent.toLowerCase()} AND outcome = 'unmatched'`),
      (rows) => rows.length === 1
    )
    let refundTx = ""
    await expectSignerReconciles(collection, async () => {
      await server.run(ReceiptRefunds.use((refunds) => refunds.requestAsOperator(receipt!.id)).pipe(Effect.orDie))
      const [done] = await eventually(
        () => query<{ readonly tx: string }>((sql) =>
          sql`SELECT refund -> 'transfer' ->> 'txHash' AS tx FROM chain_receipts WHERE id = ${receipt!.id} AND refund ->> 'status' = 'completed'`),
        (rows) => rows.length === 1,
        45_000
      )
      refundTx = done!.tx
    })
    await expectGasOf(refundTx, "refund", receipt!.id, collection)
    expect(await unbalanced()).toEqual([])
  }, 90_000)

  it("the executor's transaction reverts and the authorization is sent again: each mined transaction's gas is recorded once", async () => {
    const rpc = http(world().chain.node.rpcUrl)
    const anvil = createTestClient({ mode: "anvil", transport: rpc })
    const usdc = world().chain.contracts.usdc
    const executor = world().chain.executorAddress as Address
    const transfer = (to: Address, value: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] })
    /** Sends `data` to the token from `key` with `tip` times the usual fees (a block orders its transactions by tip). */
    const send = async (key: Hex, data: Hex, tip: bigint) => {
      const fees = await world().client.estimateFeesPerGas()
      return createWalletClient({ account: privateKeyToAccount(key), transport: rpc }).sendTransaction({
        chain: null,
        to: usdc,
        data,
        gas: 200_000n,
        maxFeePerGas: fees.maxFeePerGas * tip,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas * tip
      })
    }
    const mined = (hash: Hex) => world().client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    const key = generatePrivateKey()
    const buyer = privateKeyToAccount(key).address
    const paymentId = (await server.payment(partner.sandbox, settling)).paymentId as string
    const call = (path: string, body: unknown) => server.request("POST", `/v1/gateway/payment/${paymentId}/${path}`, { apiKey: walletKey, body })
    const [option] = (await call("options", { accounts: [caip10(buyer)] })).body.options
    const amount = BigInt(option.amount.value)
    await anvil.setBalance({ address: buyer, value: 10n ** 18n })
    await mined(await send(anvilAccount(8).privateKey, transfer(buyer, amount), 1n))
    const signature = await Chain.LocalWallet.signOption(option, key)

    await expectSignerReconciles(executor, async () => {
      const before = await world().client.getTransactionCount({ address: executor })
      await anvil.setAutomine(false)
      let reverted: Hex | undefined
      try {
        expect((await call("confirm", { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null })).body.status)
          .toBe("processing")
        // The executor's transaction waits in the pool; the buyer moves its funds away ahead of it in the same block.
        await eventually(() => world().client.getTransactionCount({ address: executor, blockTag: "pending" }), (n) => n > before, 10_000)
        await send(key, transfer(anvilAccount(8).address, amount), 4n)
        await anvil.mine({ blocks: 1 })
        const block = await world().client.getBlock({ includeTransactions: true })
        reverted = block.transactions.find((tx) => tx.from.toLowerCase() === executor.toLowerCase())?.hash
      } finally {
        await anvil.setAutomine(true)
      }
      expect(reverted).toBeDefined()
      expect((await mined(reverted!)).status).toBe("reverted")
      // Funded again: the executor sends the authorization in a new transaction, which pays the payment.
      await mined(await send(anvilAccount(8).privateKey, transfer(buyer, amount), 1n))
      expect((await eventually(() => record(paymentId), (r) => r.status === "succeeded", 45_000)).status).toBe("succeeded")
      const [paid] = await query<{ readonly tx: string }>((sql) => sql`SELECT commitment::jsonb ->> 'txHash' AS tx FROM payments WHERE id = ${paymentId}`)
      expect(paid!.tx.toLowerCase()).not.toBe(reverted!.toLowerCase())
      await expectGasOf(reverted!, "payment", paymentId, executor)
      await expectGasOf(paid!.tx, "payment", paymentId, executor)
    })
    const rows = await query<{ readonly tx_hash: string }>((sql) => sql`SELECT tx_hash FROM gas_spent WHERE subject_id = ${paymentId}`)
    expect(rows).toHaveLength(2)
    expect(await unbalanced()).toEqual([])
  }, 120_000)
})
