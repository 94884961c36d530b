/**
 * Settlements and refunds end to end on a real anvil chain, on PGlite and PostgreSQL (API rules §4,
 * §11, §6): a payment paid on chain (wallet flow and executor) is forwarded to the merchant's crypto
 * settlement destination or refunded to the payer by the payout jobs (in-process here), with
 * token balances checked on chain. Plus an RPC outage during a payout, a transfer recorded but
 * never broadcast (a crash), two workers on the same payouts, and a payout that reverts.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { IdGenerator, type PaymentId, Payout, PayoutRepository, pendingPayout, Refund, RefundRepository, SignedTransfer } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { encodeFunctionData, keccak256, parseAbi } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { expectError } from "../support/ExpectError.ts"
import { executorJob, payoutJobs } from "../support/ChainJobs.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../support/TestServer.ts"
import { eventually } from "../support/Eventually.ts"

const { anvilAccount, ChainConfig } = Chain

const world = localChainForFile()
const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const transferAbi = parseAbi(["function transfer(address to, uint256 value) returns (bool)"])
const hash = /^0x[0-9a-f]{64}$/


forEachDatabase("Settlements and refunds on chain (anvil)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(world().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let walletKey: string
  /** Has a crypto settlement destination for TUSDC. */
  let settling: string
  /** Has none: its payments stay at the collection address. */
  let keeping: string
  const destination = privateKeyToAccount(generatePrivateKey()).address
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const chainId = () => world().chain.chainId
  const collection = () => world().chain.collectionAddress
  const caip10 = (address: string) => `${chainId()}:${address}`
  const freshAccount = () => privateKeyToAccount(generatePrivateKey()).address
  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const record = async (paymentId: string) => (await api("GET", `/v1/payments/${paymentId}`)).body
  const launch = async (layer: Layer.Layer<never, never, Services>) => {
    const fiber = await server.run(Effect.forkDetach(Layer.launch(layer)))
    jobs.push(fiber)
    return fiber
  }

  /** Pays a new payment of `merchantId` on chain with anvil account `payer` (wallet flow, executor); answers its id. */
  const payOnChain = async (merchantId: string, payer: number) => {
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    const call = (path: string, body: unknown) =>
      server.request("POST", `/v1/gateway/payment/${paymentId}/${path}`, { apiKey: walletKey, body })
    const [option] = (await call("options", { accounts: [caip10(anvilAccount(payer).address)] })).body.options
    const signature = await Chain.LocalWallet.signOption(option, anvilAccount(payer).privateKey)
    const confirmed = await call("confirm", { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null })
    expect(confirmed.body.status).toBe("processing")
    await eventually(() => record(paymentId), (r) => r.status === "succeeded")
    return paymentId
  }

  /** A payment of `merchantId` succeeded (written directly) as paid by `account` with `tokenAmount` TUSDC. */
  const paidInDatabase = async (merchantId: string, account: string, tokenAmount: bigint) => {
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    await server.succeed(paymentId, { account: caip10(account), asset: world().chain.usdcAssetId, tokenAmount })
    return paymentId
  }

  const outboxOf = (paymentId: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly type: string; readonly payload: any }>`SELECT type, payload FROM outbox_events
        WHERE payment_id = ${paymentId} ORDER BY created_at, type`
    }).pipe(Effect.orDie))

  beforeAll(async () => {
    await launch(executorJob)
    await launch(payoutJobs())
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
    settling = await server.merchant(partner.sandbox, "Settling Shop")
    keeping = await server.merchant(partner.sandbox, "Keeping Shop")
    const registered = await api("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(destination) }]
    })
    expect(registered.status).toBe(201)
  }, 120_000)

  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  it("settlement: a payment paid on chain is forwarded to the merchant's destination, with payment.settled", async () => {
    const before = { destination: await world().balanceOf(destination), collection: await world().balanceOf(collection()) }
    const paymentId = await payOnChain(settling, 1)
    const settled = await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(settled.settlement).toEqual({ status: "completed", txHash: expect.stringMatching(hash), settledAt: expect.any(Number) })
    expect(settled.settlement.settledAt).toBeGreaterThanOrEqual(settled.createdAt)
    expect(settled.refund).toBeNull()
    // 12.50 USD of TUSDC came in from the payer and went out to the destination.
    expect(await world().balanceOf(destination)).toBe(before.destination + 12_500_000n)
    expect(await world().balanceOf(collection())).toBe(before.collection)
    const transfer = await world().client.getTransaction({ hash: settled.settlement.txHash })
    expect(transfer.from.toLowerCase()).toBe(collection().toLowerCase())

    const events = await outboxOf(paymentId)
    expect(events.map((e) => e.type).sort()).toEqual(["payment.created", "payment.processing", "payment.settled", "payment.succeeded"])
    const event = events.find((e) => e.type === "payment.settled")!.payload
    expect(event.stage).toEqual(settled.settlement)
    expect(event.payment.stateVersion).toBe(settled.stateVersion)

    // Its funds are the merchant's now: no refund.
    expectCode(await api("POST", "/v1/refunds", { paymentId }), "invalid_state")
  })

  it("refund: the token amount goes back to the payer, and the refund shows on the payment", async () => {
    const payer = anvilAccount(2).address
    const before = await world().balanceOf(payer)
    const paymentId = await payOnChain(keeping, 2)
    expect(await world().balanceOf(payer)).toBe(before - 12_500_000n)
    expect((await record(paymentId)).settlement).toBeNull()

    const requested = await api("POST", "/v1/refunds", { paymentId })
    expect(requested.status).toBe(201)
    expect(requested.body).toMatchObject({ paymentId, status: "pending", txHash: null })
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund).toEqual({ refundId: requested.body.refundId, status: "completed", txHash: expect.stringMatching(hash) })
    expect(await world().balanceOf(payer)).toBe(before)
    expect(refunded.settlement).toBeNull()
    expectCode(await api("POST", "/v1/refunds", { paymentId }), "already_refunded")
    const events = await outboxOf(paymentId)
    expect(events.map((e) => e.type)).not.toContain("payment.settled")
    expect(events.find((e) => e.type === "payment.refunded")!.payload.stage).toEqual({
      refundId: requested.body.refundId,
      status: "completed",
      txHash: refunded.refund.txHash,
      amount: { unit: "iso4217/USD", value: "1250" },
      tokenValue: "12500000"
    })
  })

  it("partial refunds: each goes back on chain and is reported, the last sends exactly what is left, beyond is refused; the ledger balances", async () => {
    const payer = anvilAccount(3).address
    const before = await world().balanceOf(payer)
    const paymentId = await payOnChain(keeping, 3)
    const usd = (value: string) => ({ paymentId, amount: { unit: "iso4217/USD", value } })
    const first = await api("POST", "/v1/refunds", usd("333"))
    expect([first.status, first.body.tokenValue]).toEqual([201, "3330000"])
    await eventually(() => record(paymentId), (r) => r.refund?.refundId === first.body.refundId && r.refund.status === "completed")
    expect(await world().balanceOf(payer)).toBe(before - 12_500_000n + 3_330_000n)
    expectCode(await api("POST", "/v1/refunds", usd("918")), "already_refunded")
    const rest = await api("POST", "/v1/refunds", usd("917"))
    expect([rest.status, rest.body.tokenValue]).toEqual([201, "9170000"])
    const done = await eventually(() => record(paymentId), (r) => r.refund?.refundId === rest.body.refundId && r.refund.status === "completed")
    expect(done.refund.txHash).toMatch(hash)
    expect(await world().balanceOf(payer)).toBe(before)
    expectCode(await api("POST", "/v1/refunds", usd("1")), "already_refunded")
    const reported = (await outboxOf(paymentId)).filter((e) => e.type === "payment.refunded").map((e) => e.payload.stage.refundId)
    expect(reported.sort()).toEqual([first.body.refundId, rest.body.refundId].sort())
    // Each refund transfer posted once, balanced: the merchant paid back exactly what came in.
    const ledger = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly source_id: string; readonly total: string; readonly merchant: string }>`
        SELECT t.source_id, sum(e.amount)::text AS total, sum(e.amount) FILTER (WHERE a.kind = 'merchant')::text AS merchant
        FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
        WHERE t.source = 'payout' AND t.source_id LIKE ${`${paymentId}:%`} GROUP BY t.source_id ORDER BY t.source_id`
    }).pipe(Effect.orDie))
    expect(ledger).toEqual([
      { source_id: `${paymentId}:refund:0`, total: "0", merchant: "3330000" },
      { source_id: `${paymentId}:refund:1`, total: "0", merchant: "9170000" }
    ])
  })

  it("RPC outage during a payout: the settlement stays pending, then completes when the chain is back", async () => {
    const before = await world().balanceOf(destination)
    world().proxy.cut()
    let paymentId: string
    try {
      paymentId = await paidInDatabase(settling, freshAccount(), 3_000_000n)
      // Several payout rounds meet the outage; none decides anything.
      const waiting = await eventually(() => record(paymentId), (r) => r.settlement !== null)
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      expect((await record(paymentId)).settlement).toEqual({ status: "pending", txHash: null, settledAt: null })
      expect(waiting.settlement.status).toBe("pending")
    } finally {
      world().proxy.restore()
    }
    const settled = await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(settled.settlement.txHash).toMatch(hash)
    expect(await world().balanceOf(destination)).toBe(before + 3_000_000n)
  })

  it("a transfer recorded but never broadcast (a crash in between) is broadcast later, and pays once", async () => {
    const payer = freshAccount()
    const paymentId = await paidInDatabase(keeping, payer, 1_500_000n)
    // What a worker killed right after recording leaves: the signed transfer, never sent.
    const key = anvilAccount(9)
    const nonce = await world().client.getTransactionCount({ address: key.address, blockTag: "pending" })
    const fees = await world().client.estimateFeesPerGas()
    const raw = await privateKeyToAccount(key.privateKey).signTransaction({
      type: "eip1559",
      chainId: world().chain.node.chainId,
      nonce,
      to: world().chain.contracts.usdc,
      data: encodeFunctionData({ abi: transferAbi, functionName: "transfer", args: [payer, 1_500_000n] }),
      gas: 100_000n,
      value: 0n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas
    })
    const signed = new SignedTransfer({ txHash: keccak256(raw), raw })
    await server.run(Effect.gen(function*() {
      const millis = Date.now()
      const refund = new Refund({
        id: yield* (yield* IdGenerator).make("refund"),
        paymentId: paymentId as PaymentId,
        partnerId: partner.partnerId,
        currency: "USD",
        amount: 1_000n,
        value: 1_500_000n,
        status: "pending",
        txHash: signed.txHash,
        createdAt: millis,
        updatedAt: millis
      })
      const payout = pendingPayout({
        paymentId: paymentId as PaymentId,
        kind: "refund",
        refundId: refund.id,
        asset: world().chain.usdcAssetId,
        recipient: caip10(payer),
        value: 1_500_000n
      }, millis)
      yield* (yield* RefundRepository).insert(refund.paymentId, () => Effect.succeed({ refund, payouts: [new Payout({ ...payout, transfer: signed })] }))
    }).pipe(Effect.orDie))
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(await world().balanceOf(payer)).toBe(1_500_000n)
    // Nothing else took its nonce meanwhile: the recorded transfer itself went out.
    expect(refunded.refund.txHash).toBe(signed.txHash)
  })

  it("two workers on the same payouts: each refund is paid exactly once", async () => {
    const second = await launch(payoutJobs())
    try {
      const payers = Array.from({ length: 6 }, freshAccount)
      const collected = await world().balanceOf(collection())
      const payments = await Promise.all(payers.map((payer) => paidInDatabase(keeping, payer, 1_000_000n)))
      const requests = await Promise.all(payments.map((paymentId) => api("POST", "/v1/refunds", { paymentId })))
      expect(requests.map((r) => r.status)).toEqual(payments.map(() => 201))
      const done = await Promise.all(payments.map((paymentId) =>
        eventually(() => record(paymentId), (r) => r.refund?.status === "completed", 60_000)))
      for (const payer of payers) expect(await world().balanceOf(payer)).toBe(1_000_000n)
      expect(await world().balanceOf(collection())).toBe(collected - 6_000_000n)
      expect(new Set(done.map((r) => r.refund.txHash)).size).toBe(6)
    } finally {
      await Effect.runPromise(Fiber.interrupt(second))
    }
  }, 90_000)

  it("a payout that reverts (the collection address lacks the tokens) is retried, then failed, visibly", async () => {
    const collected = await world().balanceOf(collection())
    const tooMuch = collected + 1n
    const paymentId = await paidInDatabase(settling, freshAccount(), tooMuch)
    const failed = await eventually(() => record(paymentId), (r) => r.settlement?.status === "failed")
    expect(failed.settlement).toEqual({ status: "failed", txHash: null, settledAt: null })
    const payout = await server.run(PayoutRepository.use((repo) => repo.find({ paymentId: paymentId as PaymentId, kind: "settlement" })))
    expect(Option.getOrThrow(payout)).toMatchObject({ status: "failed", attempts: 3 })
    expect(Option.getOrThrow(payout).lastError).toMatch(/would revert.*attempt 3 of 3/)
    expect((await outboxOf(paymentId)).map((e) => e.type)).not.toContain("payment.settled")

    // The funds never left, so the payment can still be refunded; that reverts too, and fails visibly.
    const requested = await api("POST", "/v1/refunds", { paymentId })
    expect(requested.status).toBe(201)
    const refundFailed = await eventually(() => record(paymentId), (r) => r.refund?.status === "failed")
    expect(refundFailed.refund).toEqual({ refundId: requested.body.refundId, status: "failed", txHash: null })
    expect(await world().balanceOf(collection())).toBe(collected)
  })
})
