/**
 * Reconciliation from the chain on anvil, on PGlite and PostgreSQL: push payments whose wallet never
 * confirmed are found by the watcher (the worker's job, in process) from the reference their
 * transfer carries. Exact → processed as a confirm (then the executor's succeeded), overpaid →
 * succeeded with the excess refundable, underpaid → stays open for the rest (later parts add up), late (expired,
 * cancelled) → recorded against the payment with `payment.transfer_received`, no or an unknown
 * reference → unmatched. Plus a worker killed mid-scan (another resumes from the cursor, nothing
 * twice) and a reorganisation within the confirmation depth (the orphaned transfer never counts).
 */
import { eventuallyFound } from "../../../test/support/Eventually.ts"
import { Chain, GatewayServices, SqlChainWork, SqlPersistence, SqlQuoteStore, WorkerPorts } from "@paygate/adapters"
import {
  Executions,
  IdGenerator,
  InvalidState,
  type PaymentId,
  type Receipt,
  ReceiptRefunds,
  Reconciliation,
  ReceiptStore,
  ScanCursors
} from "@paygate/domain"
import { Effect, Fiber, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { createWalletClient, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutUseCases } from "../../../test/support/ChainJobs.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { forEachDatabase, type TestPartner, type TestServer, makeTestServer } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings, watcherJob } from "../../../test/support/WatcherJob.ts"
import { defaultExecutorSettings, defaultPayoutSettings, ExecutorJob, ExecutorSettings, PayoutSettings, payoutsWith } from "../src/index.ts"

const { anvilAccount, ChainConfig, PushTransfer, TransferLogs } = Chain

// Three confirmations: a transfer counts once two more blocks are mined on top of its own.
const confirmations = 3
const world = localChainForFile()
const payer = anvilAccount(7)

const anvil = (method: string, params: ReadonlyArray<unknown> = []) => anvilRpc(world(), method, params)
/** The next block no earlier than the wall clock (anvil's block times can lag it after reverts). */
const catchUpClock = async () => {
  const latest = await world().client.getBlock()
  await anvil("evm_setNextBlockTimestamp", [Math.max(Number(latest.timestamp) + 1, Math.ceil(Date.now() / 1000) + 1)])
}
/** Mines `n` blocks. */
const mine = (n: number) => anvil("anvil_mine", [`0x${n.toString(16)}`])

const wallet = () =>
  createWalletClient({ account: privateKeyToAccount(payer.privateKey), transport: http(world().chain.node.rpcUrl) })
/** Sends a token call from the payer and waits for its inclusion. */
const send = async (data: Hex) => {
  const hash = await wallet().sendTransaction({ chain: null, to: world().chain.contracts.usdc, data, value: 0n })
  await world().client.waitForTransactionReceipt({ hash })
  return hash
}

/** Payouts (and receipt refunds) checking often. */
const fastPayouts = { ...defaultPayoutSettings, pollIntervalMs: 50, pendingRecheckMs: 100, unknownRecheckMs: 300, retryMs: 200 }

const executorLayer = ExecutorJob.pipe(
  Layer.provide(Layer.mergeAll(Executions.layer, SqlChainWork.layer)),
  Layer.provide(Layer.succeed(ExecutorSettings, { ...defaultExecutorSettings, pollIntervalMs: 50, pendingRecheckMs: 100 }))
)

/** The SQL ports (receipts, cursors) over the server's database. */
const withStores = <A, E>(effect: Effect.Effect<A, E, ReceiptStore | ScanCursors | SqlClient.SqlClient>) =>
  effect.pipe(Effect.provide(SqlPersistence.layer), Effect.orDie)

forEachDatabase("Chain watcher (anvil)", (database) => {
  let server: TestServer
  let partner: TestPartner
  let merchantId: string
  let walletKey: string
  let chains: Chain.ChainConfig.Chains
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []

  const startWatcher = async () => {
    const fiber = await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains))))
    fibers.push(fiber)
    return fiber
  }

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(watchedSettings(world(), confirmations, false)))
    server = await makeTestServer(database, {
      gateway: GatewayServices.settings({ chains: Layer.succeed(ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
    })
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(executorLayer))))
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Watched Shop")
    walletKey = await server.walletKey("sandbox")
  })
  afterAll(async () => {
    for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
    await server?.close()
  })

  const gateway = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: walletKey, ...(body === undefined ? {} : { body }) })

  /** A new payment of 12.50 USD and its push option's calldata: `transfer(collection, 12.5 TUSDC)` + reference. */
  const pushPayment = async () => {
    const created = await server.request("POST", "/v1/payments", {
      apiKey: partner.sandbox,
      body: { merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: `watched-${randomBytes(4).toString("hex")}` }
    })
    expect(created.status).toBe(201)
    const paymentId = created.body.paymentId as string
    const options = await gateway("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [`${world().chain.chainId}:${payer.address}`] })
    const option = options.body.options[0]
    const fetched = await gateway("POST", `/v1/gateway/payment/${paymentId}/fetch`, { optionId: option.id, data: option.actions[0].data.data })
    const data = fetched.body.actions[0].data.params[0].data as Hex
    const transfer = PushTransfer.decodeTransferWithReference(data)
    if (transfer._tag === "None") throw new Error("the served calldata is not a transfer with a reference")
    return { paymentId, data, ...transfer.value }
  }
  /** The served transfer with another amount (same recipient and reference). */
  const withValue = (p: { readonly to: Hex; readonly reference: Hex }, value: bigint) =>
    PushTransfer.encodeTransferWithReference(p.to, value, p.reference)

  const receiptsOf = (paymentId: string) =>
    server.run(withStores(Effect.gen(function*() {
      return yield* (yield* ReceiptStore).list({ owner: { partnerId: partner.partnerId, mode: "sandbox" }, paymentId: paymentId as PaymentId, after: null, limit: 100 })
    })))
  const unmatched = () =>
    server.run(withStores(Effect.gen(function*() {
      return yield* (yield* ReceiptStore).list({ owner: "operator", after: null, limit: 100 })
    })))
  /** The operator's refund of a receipt no partner owns (`paygate-admin receipt refund`), and why it is refused. */
  const asOperator = (id: string) => ReceiptRefunds.use((r) => r.requestAsOperator(id)).pipe(Effect.provide(ReceiptRefunds.layer))
  const operatorRefund = (id: string) => server.run(asOperator(id))
  const operatorRefused = (id: string) => server.run(Effect.flip(asOperator(id)))
  const eventsOf = (paymentId: string) => outboxEventsOf(server, paymentId)
  const status = async (paymentId: string) => (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })).body.status
  const receiptOf = (paymentId: string, txHash: string) =>
    eventuallyFound(`a receipt of ${txHash}`, async () => (await receiptsOf(paymentId)).find((r) => r.txHash === txHash.toLowerCase()))
  const statusBecomes = (paymentId: string, wanted: string) =>
    eventuallyFound(`${paymentId} ${wanted}`, async () => ((await status(paymentId)) === wanted ? wanted : undefined))

  it("exact amount, no confirm: processed as a confirm would be, then succeeded (two workers watching)", async () => {
    // Two workers: one holds the chain's cursor, the other finds it leased; nothing is done twice.
    await startWatcher()
    await startWatcher()
    const p = await pushPayment()
    const hash = await send(p.data)
    await mine(confirmations - 1)
    const receipt = await receiptOf(p.paymentId, hash)
    expect(receipt).toMatchObject({ outcome: "paid", value: 12_500_000n, expectedValue: 12_500_000n, from: `${world().chain.chainId}:${payer.address}` })
    await statusBecomes(p.paymentId, "succeeded")
    const record = (await server.request("GET", `/v1/payments/${p.paymentId}`, { apiKey: partner.sandbox })).body
    expect(JSON.stringify(record).toLowerCase()).toContain(hash.toLowerCase())
    const events = await eventsOf(p.paymentId)
    expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
    expect(events[1]!.payload.stage).toMatchObject({ amount: "12500000", receipt: { outcome: "paid", txHash: hash.toLowerCase() } })
  })

  it("overpaid: succeeded, the excess recorded as refundable", async () => {
    const p = await pushPayment()
    const hash = await send(withValue(p, 13_000_000n))
    await mine(confirmations - 1)
    const receipt = await receiptOf(p.paymentId, hash)
    expect(receipt.outcome).toBe("overpaid")
    await statusBecomes(p.paymentId, "succeeded")
    const events = await eventsOf(p.paymentId)
    expect(events[1]!.payload.stage.receipt).toMatchObject({ outcome: "overpaid", refundableValue: "500000", value: "13000000" })
  })

  it("underpaid: the payment stays open, the shortfall is visible, payment.transfer_received", async () => {
    const p = await pushPayment()
    const hash = await send(withValue(p, 2_500_000n))
    await mine(confirmations - 1)
    const receipt = await receiptOf(p.paymentId, hash)
    expect(receipt).toMatchObject({ outcome: "underpaid", paymentStatus: "requires_action" })
    expect(await status(p.paymentId)).toBe("requires_action")
    const events = await eventsOf(p.paymentId)
    expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.transfer_received"])
    expect(events[1]!.payload.stage.receipt).toMatchObject({ outcome: "underpaid", shortfall: "10000000", refundableValue: "2500000" })
    // Open for the rest: a second part is judged against what is left (7.50 of 10.00 sent: 2.50 short).
    const second = await send(withValue(p, 7_500_000n))
    await mine(confirmations - 1)
    expect(await receiptOf(p.paymentId, second)).toMatchObject({ outcome: "underpaid", expectedValue: 10_000_000n, value: 7_500_000n })
    expect(await status(p.paymentId)).toBe("requires_action")
    // The rest completes it: processed as a confirm, every part counted as paid and none refundable.
    const rest = await send(withValue(p, 2_500_000n))
    await mine(confirmations - 1)
    expect(await receiptOf(p.paymentId, rest)).toMatchObject({ outcome: "paid", expectedValue: 2_500_000n })
    await statusBecomes(p.paymentId, "succeeded")
    const all = await receiptsOf(p.paymentId)
    expect(all.map((r) => `${r.value} ${r.outcome}`).sort()).toEqual(["2500000 paid", "2500000 paid", "7500000 paid"])
    const after = await eventsOf(p.paymentId)
    expect(after.map((e) => e.type)).toEqual(["payment.created", "payment.transfer_received", "payment.transfer_received", "payment.processing", "payment.succeeded"])
    // The merchant is paid the payment's amount, once: the parts add up to it.
    expect(after[3]!.payload.stage).toMatchObject({ amount: "12500000", receipt: { outcome: "paid", value: "2500000", shortfall: "0", refundableValue: "0" } })
    const refused = await server.request("POST", `/v1/receipts/${all.find((r) => r.txHash === hash.toLowerCase())!.id}/refund`, { apiKey: partner.sandbox })
    expect(refused.body.code).toBe("invalid_state")
  })

  it("underpaid parts: more than the rest overpays (the excess refundable); a part being refunded no longer counts", async () => {
    const p = await pushPayment()
    const part = await send(withValue(p, 5_000_000n))
    await mine(confirmations - 1)
    expect((await receiptOf(p.paymentId, part)).outcome).toBe("underpaid")
    const more = await send(withValue(p, 9_000_000n))
    await mine(confirmations - 1)
    // 7.50 was left: 1.50 too much.
    expect(await receiptOf(p.paymentId, more)).toMatchObject({ outcome: "overpaid", expectedValue: 7_500_000n })
    await statusBecomes(p.paymentId, "succeeded")
    const events = await eventsOf(p.paymentId)
    expect(events.find((e) => e.type === "payment.processing")!.payload.stage.receipt).toMatchObject({ refundableValue: "1500000" })

    const q = await pushPayment()
    const first = await send(withValue(q, 5_000_000n))
    await mine(confirmations - 1)
    const refunded = await receiptOf(q.paymentId, first)
    expect((await server.request("POST", `/v1/receipts/${refunded.id}/refund`, { apiKey: partner.sandbox })).status).toBe(200)
    // Sent back to the buyer: the next part is judged against the whole amount again.
    const next = await send(withValue(q, 7_500_000n))
    await mine(confirmations - 1)
    expect(await receiptOf(q.paymentId, next)).toMatchObject({ outcome: "underpaid", expectedValue: 12_500_000n })
    expect(await status(q.paymentId)).toBe("requires_action")
  })

  it("late: after a cancel or after expiry, recorded against the payment and refundable; the status stays", async () => {
    const cancelled = await pushPayment()
    expect((await server.request("POST", `/v1/payments/${cancelled.paymentId}/cancel`, { apiKey: partner.sandbox })).status).toBe(200)
    const expired = await pushPayment()
    await server.expireNow(expired.paymentId)
    // Late is judged by the block's time: it must be past the payment's expiry.
    await catchUpClock()
    const first = await send(cancelled.data)
    const second = await send(expired.data)
    await mine(confirmations - 1)
    expect(await receiptOf(cancelled.paymentId, first)).toMatchObject({ outcome: "late", paymentStatus: "cancelled" })
    expect((await receiptOf(expired.paymentId, second)).outcome).toBe("late")
    expect(await status(cancelled.paymentId)).toBe("cancelled")
    expect(await status(expired.paymentId)).toBe("expired")
    for (const id of [cancelled.paymentId, expired.paymentId]) {
      const late = (await eventsOf(id)).filter((e) => e.type === "payment.transfer_received")
      expect(late).toHaveLength(1)
      expect(late[0]!.payload.stage.receipt).toMatchObject({ outcome: "late", refundableValue: "12500000" })
    }
  })

  it("no reference, or one never handed out: kept as unmatched receipts", async () => {
    const plain = await send(PushTransfer.encodeTransferWithReference(world().chain.collectionAddress, 1_234n, `0x${"ab".repeat(16)}`))
    const bare = await send(`0xa9059cbb${world().chain.collectionAddress.slice(2).toLowerCase().padStart(64, "0")}${(4_321n).toString(16).padStart(64, "0")}`)
    await mine(confirmations - 1)
    const found = await eventuallyFound("both unmatched receipts", async () => {
      const all = await unmatched()
      const mine = all.filter((r) => r.txHash === plain.toLowerCase() || r.txHash === bare.toLowerCase())
      return mine.length === 2 ? mine : undefined
    })
    expect(found.map((r) => [r.outcome, r.value, r.paymentId]).sort()).toEqual([["unmatched", 1_234n, null], ["unmatched", 4_321n, null]])
    expect(found.find((r) => r.txHash === bare.toLowerCase())!.reference).toBeNull()
  })

  it("a wallet-confirmed push payment's own transfer is recorded once as paid, with no second event", async () => {
    const p = await pushPayment()
    const hash = await send(p.data)
    const options = await gateway("POST", `/v1/gateway/payment/${p.paymentId}/options`, { accounts: [`${world().chain.chainId}:${payer.address}`] })
    const confirmed = await gateway("POST", `/v1/gateway/payment/${p.paymentId}/confirm`, {
      optionId: options.body.options[0].id,
      results: [{ type: "walletRpc", data: [hash] }],
      collectedData: null
    })
    expect(confirmed.status).toBe(200)
    await mine(confirmations - 1)
    expect((await receiptOf(p.paymentId, hash)).outcome).toBe("paid")
    await statusBecomes(p.paymentId, "succeeded")
    expect((await eventsOf(p.paymentId)).map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  })

  it("a worker killed mid-scan: another resumes from the cursor after its lease, nothing is processed twice", async () => {
    for (const fiber of fibers.splice(1)) await Effect.runPromise(Fiber.interrupt(fiber))
    const a = await pushPayment()
    const b = await pushPayment()
    const first = await send(a.data)
    const second = await send(b.data)
    await mine(confirmations - 1)
    // The dead worker took the chain and recorded the first transfer, then died before moving the cursor.
    const [watched] = TransferLogs.watchedChains(chains)
    await server.run(withStores(Effect.gen(function*() {
      const claimed = yield* (yield* ScanCursors).claim(watched!.chainId, "dead-worker", 1_500)
      expect(claimed._tag).toBe("Some")
      const transfers = yield* Effect.orDie(TransferLogs.transfersIn(watched!, 0, Number(yield* Effect.promise(() => world().client.getBlockNumber({ cacheTime: 0 })))))
      const own = transfers.find((t) => t.txHash === first.toLowerCase())!
      const { result } = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* (yield* Reconciliation).reconcile(own)
        }),
        Reconciliation.layer.pipe(Layer.provide(Layer.mergeAll(SqlPersistence.layer, SqlQuoteStore.layer, IdGenerator.layer)), Layer.provide(SecureRandom.layerWebCrypto))
      ).pipe(Effect.orDie)
      expect(result).toBe("recorded")
    })))
    expect(await status(a.paymentId)).toBe("processing")
    await startWatcher()
    await statusBecomes(a.paymentId, "succeeded")
    await statusBecomes(b.paymentId, "succeeded")
    for (const [p, hash] of [[a, first], [b, second]] as const) {
      expect((await receiptsOf(p.paymentId)).filter((r: Receipt) => r.txHash === hash.toLowerCase())).toHaveLength(1)
      expect((await eventsOf(p.paymentId)).map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
    }
  })

  it("GET /v1/receipts: the partner's receipts by payment and outcome, nobody else's, and not the operator's unmatched ones", async () => {
    const p = await pushPayment()
    const hash = await send(withValue(p, 2_000_000n))
    await mine(confirmations - 1)
    await receiptOf(p.paymentId, hash)
    const list = (query: string, apiKey = partner.sandbox) => server.request("GET", `/v1/receipts${query}`, { apiKey })
    const byPayment = await list(`?paymentId=${p.paymentId}`)
    expect(byPayment.status).toBe(200)
    expect(byPayment.body).toEqual({
      data: [{
        receiptId: expect.stringMatching(/^rcp_[0-9A-Z]{26}$/),
        outcome: "underpaid",
        paymentId: p.paymentId,
        paymentStatus: "requires_action",
        chainId: world().chain.chainId,
        asset: chains.settings.assets[0]!.assetId,
        txHash: hash.toLowerCase(),
        logIndex: expect.any(Number),
        blockNumber: expect.any(Number),
        blockTime: expect.any(Number),
        from: `${world().chain.chainId}:${payer.address}`,
        value: "2000000",
        expectedValue: "12500000",
        shortfall: "10500000",
        refundableValue: "2000000",
        reference: p.reference,
        createdAt: expect.any(Number),
        refund: null,
        reversedAt: null
      }],
      nextCursor: null
    })
    const late = await list("?outcome=late&outcome=underpaid&limit=100")
    expect(late.body.data.length).toBeGreaterThanOrEqual(3)
    expect(late.body.data.every((r: any) => r.outcome === "late" || r.outcome === "underpaid")).toBe(true)
    const paged = await list("?limit=1")
    expect(paged.body.data).toHaveLength(1)
    expect((await list(`?limit=1&cursor=${paged.body.nextCursor}`)).body.data[0].receiptId).not.toBe(paged.body.data[0].receiptId)
    // Unmatched transfers into the collection address are the operator's: no partner lists them.
    expect((await unmatched()).length).toBeGreaterThanOrEqual(2)
    expect((await list("?outcome=unmatched&limit=100")).body.data).toEqual([])
    // Another partner sees none of this partner's receipts, the live key none of sandbox's.
    const other = await server.partner()
    expect((await list("", other.sandbox)).body.data).toEqual([])
    expect((await list("", partner.live)).body.data).toEqual([])
    expect((await list("?outcome=unmatched", other.live)).body.data).toEqual([])
    for (const query of ["?outcome=lost", "?outcome=unmatched&outcome=late", `?outcome=unmatched&paymentId=${p.paymentId}`, "?limit=0", "?cursor=nope"]) {
      const refused = await list(query)
      expect(refused.status).toBe(400)
      expect(refused.body.code).toBe("invalid_params")
    }
  })

  it("POST /v1/receipts/{id}/refund: what a payment did not keep goes back to the sender, once", async () => {
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(payoutsWith(Layer.succeed(PayoutSettings, fastPayouts)).pipe(Layer.provide(payoutUseCases()), Layer.provide(WorkerPorts.payoutPorts))))))
    const over = await pushPayment()
    const cancelled = await pushPayment()
    const exact = await pushPayment()
    expect((await server.request("POST", `/v1/payments/${cancelled.paymentId}/cancel`, { apiKey: partner.sandbox })).status).toBe(200)
    const overHash = await send(withValue(over, 13_000_000n))
    const lateHash = await send(cancelled.data)
    const exactHash = await send(exact.data)
    const strayHash = await send(PushTransfer.encodeTransferWithReference(world().chain.collectionAddress, 777n, `0x${"cd".repeat(16)}`))
    await mine(confirmations - 1)
    const overReceipt = await receiptOf(over.paymentId, overHash)
    const lateReceipt = await receiptOf(cancelled.paymentId, lateHash)
    const exactReceipt = await receiptOf(exact.paymentId, exactHash)
    const stray = await eventuallyFound("the stray transfer's receipt", async () => (await unmatched()).find((r) => r.txHash === strayHash.toLowerCase()))
    const refund = (id: string, apiKey = partner.sandbox) => server.request("POST", `/v1/receipts/${id}/refund`, { apiKey })
    const before = await world().balanceOf(payer.address)
    const other = await server.partner()
    // Another partner cannot touch this partner's receipts; no partner an unmatched one (the operator's).
    expect((await refund(overReceipt.id, other.sandbox)).body.code).toBe("payment_not_found")
    expect((await refund(stray.id, other.sandbox)).body.code).toBe("payment_not_found")
    expect((await refund(stray.id)).body.code).toBe("payment_not_found")
    expect((await refund("rcp_nope")).status).toBe(404)
    expect((await refund(exactReceipt.id)).body.code).toBe("invalid_state")
    // The test token minted to the collection address at deployment: no sender to send it back to.
    const minted = (await unmatched()).find((r) => /:0x0{40}$/.test(r.from))!
    expect(await operatorRefused(minted.id)).toEqual(new InvalidState({ message: `Receipt ${minted.id} was minted: it has no sender to refund.` }))
    const asked = await refund(overReceipt.id)
    expect(asked.status).toBe(200)
    expect(asked.body.refund).toEqual({ status: "pending", value: "500000", txHash: null })
    expect((await refund(overReceipt.id)).body.code).toBe("already_refunded")
    expect((await refund(lateReceipt.id)).body.refund.value).toBe("12500000")
    expect((await operatorRefund(stray.id)).refund?.value).toBe(777n)
    expect((await operatorRefused(stray.id))._tag).toBe("AlreadyRefunded")
    const completed = async (paymentId: string | null, id: string) => {
      if (paymentId === null) {
        const found = (await unmatched()).find((r) => r.id === id)
        return found?.refund?.status === "completed" ? { txHash: found.refund.transfer?.txHash } : undefined
      }
      const listed = await server.request("GET", `/v1/receipts?paymentId=${paymentId}`, { apiKey: partner.sandbox })
      const found = listed.body.data.find((r: any) => r.receiptId === id)
      return found?.refund?.status === "completed" ? found.refund : undefined
    }
    for (const [paymentId, id] of [[over.paymentId, overReceipt.id], [cancelled.paymentId, lateReceipt.id], [null, stray.id]] as const) {
      const done = await eventuallyFound(`the refund of ${id}`, async () => {
        await mine(1)
        return completed(paymentId, id)
      })
      expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    }
    expect(await world().balanceOf(payer.address)).toBe(before + 500_000n + 12_500_000n + 777n)
  })

  it("a reorganisation within the confirmation depth: the orphaned transfer never counts, the one on the new chain does", async () => {
    const p = await pushPayment()
    const snapshot = await anvil("evm_snapshot")
    const orphaned = await send(p.data)
    // One confirmation short: the watcher must not take it yet.
    await mine(confirmations - 2)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await status(p.paymentId)).toBe("requires_action")
    await anvil("evm_revert", [snapshot])
    // Different blocks: empty ones first, then another transfer of a quarter of the amount.
    await mine(2)
    const replacement = await send(withValue(p, 3_125_000n))
    await mine(confirmations + 2)
    expect((await receiptOf(p.paymentId, replacement)).outcome).toBe("underpaid")
    expect((await receiptsOf(p.paymentId)).map((r) => r.txHash)).not.toContain(orphaned.toLowerCase())
    expect(await status(p.paymentId)).toBe("requires_action")
  })

  it("a reorganisation deeper than the confirmations: the changed block hash is noticed and the range read again, nothing twice", async () => {
    const p = await pushPayment()
    const hash = await send(p.data)
    await mine(confirmations - 1)
    await receiptOf(p.paymentId, hash)
    // Stop the watchers, and make the stored hash of the last block read one the chain no longer has.
    for (const fiber of fibers.splice(1)) await Effect.runPromise(Fiber.interrupt(fiber))
    const [watched] = TransferLogs.watchedChains(chains)
    const forged = `0x${"ee".repeat(32)}`
    await server.run(withStores(Effect.gen(function*() {
      const cursors = yield* ScanCursors
      const cursor = yield* cursors.claim(watched!.chainId, "test", 60_000)
      if (cursor._tag === "None" || cursor.value.nextBlock === null) return yield* Effect.die(new Error("no cursor to forge"))
      yield* cursors.advance(watched!.chainId, "test", { nextBlock: cursor.value.nextBlock, lastHash: forged }, 60_000)
      yield* cursors.release(watched!.chainId, "test")
    })))
    await startWatcher()
    await eventuallyFound("the cursor's real hash again", () =>
      server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly last_hash: string | null }>`SELECT last_hash FROM chain_cursors WHERE chain_id = ${watched!.chainId}`
        return rows[0]?.last_hash !== forged ? true : undefined
      }).pipe(Effect.orDie)))
    expect((await receiptsOf(p.paymentId)).filter((r) => r.txHash === hash.toLowerCase())).toHaveLength(1)
    expect((await eventsOf(p.paymentId)).map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  })
})
