/**
 * No dead ends on a real anvil chain: a refund, settlement or receipt refund that failed (its
 * transfer reverted five times: the collection address lacked the tokens) is retried by the
 * partner (API) or the operator (admin CLI) and paid once, its amount owed to the payer (merchant)
 * all along. Two retries at once pay once; a retry whose last transaction went through after all
 * completes without sending again.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { IdGenerator, type PaymentId, Payout, PayoutRepository, pendingPayout, Receipt, ReceiptStore, Refund, RefundRepository, SignedTransfer } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { encodeFunctionData, keccak256, parseAbi } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutJobs } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { expectError } from "../support/ExpectError.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../support/TestServer.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"

const { anvilAccount, ChainConfig } = Chain

const world = localChainForFile()
const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const transferAbi = parseAbi(["function transfer(address to, uint256 value) returns (bool)"])
const hash = /^0x[0-9a-f]{64}$/
const topUp = 1_000_000n

forEachDatabase("Retrying failed payouts on chain (anvil)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(world().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let settling: string
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
  const admin = (...argv: Array<string>) => server.admin(...argv)
  const launch = async (layer: Layer.Layer<never, never, Services>) => {
    jobs.push(await server.run(Effect.forkDetach(Layer.launch(layer))))
  }

  /** More than the collection address holds: every transfer of it reverts until the address is topped up. */
  const tooMuch = async () => (await world().balanceOf(collection())) + topUp / 2n

  /** The collection address gets `topUp` more TUSDC (from anvil #3): enough for one payout of {@link tooMuch}. */
  const topUpCollection = () =>
    sendTokenTransfer({
      rpcUrl: world().chain.node.rpcUrl,
      privateKey: anvilAccount(3).privateKey,
      token: world().chain.contracts.usdc,
      to: collection(),
      value: topUp
    })

  /** A succeeded payment (written directly) paid by `payer` with `tokenAmount` TUSDC. */
  const paidInDatabase = async (merchantId: string, payer: string, tokenAmount: bigint) => {
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    await server.succeed(paymentId, { account: caip10(payer), asset: world().chain.usdcAssetId, tokenAmount })
    return paymentId
  }

  const payoutOf = async (paymentId: string, kind: "refund" | "settlement") =>
    Option.getOrThrow(await server.run(PayoutRepository.use((repo) => repo.find({ paymentId: paymentId as PaymentId, kind }))))

  /** A refund of a new payment of `tokenAmount` (more than the collection holds), failed after its five attempts. */
  const failedRefund = async (payer: string, tokenAmount: bigint) => {
    const paymentId = await paidInDatabase(keeping, payer, tokenAmount)
    expect((await api("POST", "/v1/refunds", { paymentId })).status).toBe(201)
    await eventually(() => record(paymentId), (r) => r.refund?.status === "failed")
    expect(await payoutOf(paymentId, "refund")).toMatchObject({ status: "failed", attempts: 5 })
    return paymentId
  }

  beforeAll(async () => {
    await launch(payoutJobs({ maxAttempts: 5 }))
    partner = await server.partner()
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

  it("a refund failed five times is retried by the partner and paid once; the payer was owed it throughout", async () => {
    const payer = freshAccount()
    const amount = await tooMuch()
    const paymentId = await failedRefund(payer, amount)
    // Asking again is not the way: the refund exists.
    expectCode(await api("POST", "/v1/refunds", { paymentId }), "already_refunded")
    const failed = await record(paymentId)
    expect(failed.refund.status).toBe("failed")
    expect(failed.settlement).toBeNull()

    await topUpCollection()
    const collected = await world().balanceOf(collection())
    const retried = await api("POST", `/v1/payments/${paymentId}/refund/retry`)
    expect(retried.status).toBe(200)
    expect(retried.body.refund).toEqual({ refundId: failed.refund.refundId, status: "pending", txHash: null })
    expect(retried.body.stateVersion).toBe(failed.stateVersion + 1)
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund.txHash).toMatch(hash)
    expect(await world().balanceOf(payer)).toBe(amount)
    expect(await world().balanceOf(collection())).toBe(collected - amount)
    // Completed: nothing left to retry.
    expectCode(await api("POST", `/v1/payments/${paymentId}/refund/retry`), "invalid_state")
    expect(await world().balanceOf(payer)).toBe(amount)
  })

  it("the operator retries a failed refund with the admin CLI, and it is paid once", async () => {
    const payer = freshAccount()
    const amount = await tooMuch()
    const paymentId = await failedRefund(payer, amount)
    await topUpCollection()
    expect(await admin("refund", "retry", "--payment", paymentId)).toEqual({ paymentId, kind: "refund", status: "pending" })
    await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(await world().balanceOf(payer)).toBe(amount)
    await expect(admin("refund", "retry", "--payment", paymentId)).rejects.toThrow(/completed; only a failed one/)
    await expect(admin("refund", "retry", "--payment", "pay_nosuchpayment")).rejects.toThrow(/No payment/)
  })

  it("two retries at once (partner and partner, then operator): one wins, the refund is paid once", async () => {
    const payer = freshAccount()
    const amount = await tooMuch()
    const paymentId = await failedRefund(payer, amount)
    await topUpCollection()
    const collected = await world().balanceOf(collection())
    const [first, second, third] = await Promise.all([
      api("POST", `/v1/payments/${paymentId}/refund/retry`),
      api("POST", `/v1/payments/${paymentId}/refund/retry`),
      admin("refund", "retry", "--payment", paymentId).then(() => ({ status: 200 }), () => ({ status: 409 }))
    ])
    expect([first.status, second.status, third.status].sort()).toEqual([200, 409, 409])
    await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    // Give a second transfer every chance to show up: none does.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await world().balanceOf(payer)).toBe(amount)
    expect(await world().balanceOf(collection())).toBe(collected - amount)
  })

  it("a failed refund whose last transaction went through after all completes on retry without sending again", async () => {
    const payer = freshAccount()
    await topUpCollection()
    const paymentId = await paidInDatabase(keeping, payer, 700_000n)
    // The refund's last transfer, mined (say a reorg undid the revert the worker saw), while its payout says failed.
    const key = anvilAccount(9)
    const raw = await privateKeyToAccount(key.privateKey).signTransaction({
      type: "eip1559",
      chainId: world().chain.node.chainId,
      nonce: await world().client.getTransactionCount({ address: key.address, blockTag: "pending" }),
      to: world().chain.contracts.usdc,
      data: encodeFunctionData({ abi: transferAbi, functionName: "transfer", args: [payer, 700_000n] }),
      gas: 100_000n,
      value: 0n,
      ...(await world().client.estimateFeesPerGas())
    })
    const txHash = await world().client.sendRawTransaction({ serializedTransaction: raw })
    await world().client.waitForTransactionReceipt({ hash: txHash })
    expect(await world().balanceOf(payer)).toBe(700_000n)
    const signed = new SignedTransfer({ txHash: keccak256(raw), raw })
    await server.run(Effect.gen(function*() {
      const millis = Date.now()
      const refund = new Refund({
        id: yield* (yield* IdGenerator).make("refund"),
        paymentId: paymentId as PaymentId,
        partnerId: partner.partnerId,
        currency: "USD",
        amount: 1_000n,
        value: 700_000n,
        status: "failed",
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
        value: 700_000n
      }, millis)
      yield* (yield* RefundRepository).insert(refund.paymentId, () => Effect.succeed({ refund, payouts: [new Payout({ ...payout, status: "failed", attempts: 5, transfer: signed })] }))
    }).pipe(Effect.orDie))
    expect((await record(paymentId)).refund.status).toBe("failed")

    expect((await api("POST", `/v1/payments/${paymentId}/refund/retry`)).status).toBe(200)
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund.txHash).toBe(signed.txHash)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await world().balanceOf(payer)).toBe(700_000n)
  })

  it("a failed settlement is retried by the partner: the merchant is paid once, with one payment.settled", async () => {
    const amount = await tooMuch()
    const paymentId = await paidInDatabase(settling, freshAccount(), amount)
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "failed")
    expect(await payoutOf(paymentId, "settlement")).toMatchObject({ attempts: 5 })
    // A refund is not retried when there is none; the settlement is.
    expectCode(await api("POST", `/v1/payments/${paymentId}/refund/retry`), "invalid_state")
    await topUpCollection()
    const before = await world().balanceOf(destination)
    expect((await api("POST", `/v1/payments/${paymentId}/settlement/retry`)).body.settlement).toEqual({
      status: "pending",
      txHash: null,
      settledAt: null
    })
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(await world().balanceOf(destination)).toBe(before + amount)
    const events = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly type: string }>`SELECT type FROM outbox_events WHERE payment_id = ${paymentId}`
    }).pipe(Effect.orDie))
    expect(events.filter((e) => e.type === "payment.settled")).toHaveLength(1)
  })

  it("a refund in part of a payment whose settlement failed: the buyer gets the part and the merchant the rest, once each", async () => {
    const amount = await tooMuch()
    const payer = freshAccount()
    const paymentId = await paidInDatabase(settling, payer, amount)
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "failed")
    await topUpCollection()
    const [destinationBefore, collectionBefore] = [await world().balanceOf(destination), await world().balanceOf(collection())]
    // 5.00 of the 12.50 paid: its share of the tokens, rounded down; the settlement takes exactly the rest.
    const refunded = await api("POST", "/v1/refunds", { paymentId, amount: { unit: "iso4217/USD", value: "500" } })
    expect(refunded.status).toBe(201)
    const part = (amount * 500n) / 1250n
    const done = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed" && r.settlement?.status === "completed")
    expect(done.settlement.txHash).toMatch(hash)
    expect(await world().balanceOf(payer)).toBe(part)
    expect(await world().balanceOf(destination)).toBe(destinationBefore + amount - part)
    expect(await world().balanceOf(collection())).toBe(collectionBefore - amount)
    // Nothing is left to pay, retry or refund.
    expectCode(await api("POST", `/v1/payments/${paymentId}/settlement/retry`), "invalid_state")
    expectCode(await api("POST", "/v1/refunds", { paymentId }), "invalid_state")
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await world().balanceOf(destination)).toBe(destinationBefore + amount - part)
  })

  it("another tenant cannot retry a payment's refund: 404, as for a missing payment", async () => {
    const paymentId = await failedRefund(freshAccount(), await tooMuch())
    const other = await server.partner()
    expectCode(await server.request("POST", `/v1/payments/${paymentId}/refund/retry`, { apiKey: other.sandbox }), "payment_not_found")
    expectCode(await api("POST", "/v1/payments/pay_nosuchpayment/refund/retry"), "payment_not_found")
    // Leave it paid, for the tests after this one.
    await topUpCollection()
    await admin("refund", "retry", "--payment", paymentId)
    await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
  })

  it("a receipt's failed refund is retried (of two retries at once, one wins) and sent once", async () => {
    const sender = freshAccount()
    const value = await tooMuch()
    const paymentId = await paidInDatabase(keeping, freshAccount(), 1_000n)
    // A late transfer into the collection address, as the chain watcher records it.
    const receipt = await server.run(Effect.gen(function*() {
      const millis = Date.now()
      const receipt = new Receipt({
        id: yield* (yield* IdGenerator).make("receipt"),
        chainId: chainId(),
        asset: world().chain.usdcAssetId,
        txHash: `0x${randomBytes(32).toString("hex")}`,
        logIndex: 0,
        blockNumber: 1,
        blockHash: `0x${randomBytes(32).toString("hex")}`,
        blockTime: Math.floor(millis / 1000),
        from: caip10(sender),
        value,
        reference: null,
        outcome: "late",
        paymentId: paymentId as PaymentId,
        partnerId: partner.partnerId,
        mode: "sandbox",
        expectedValue: 1_000n,
        paymentStatus: "succeeded",
        recordedAt: millis,
        refund: null,
        reversedAt: null
      })
      expect(yield* (yield* ReceiptStore).record(receipt, null, [], [], null)).toBe("recorded")
      return receipt
    }))
    const receiptRecord = async () => (await api("GET", `/v1/receipts?paymentId=${paymentId}`)).body.data[0]
    expectCode(await api("POST", `/v1/receipts/${receipt.id}/refund/retry`), "invalid_state")
    expect((await api("POST", `/v1/receipts/${receipt.id}/refund`)).status).toBe(200)
    await eventually(receiptRecord, (r) => r.refund?.status === "failed")
    await topUpCollection()
    const [first, second] = await Promise.all([
      api("POST", `/v1/receipts/${receipt.id}/refund/retry`),
      api("POST", `/v1/receipts/${receipt.id}/refund/retry`)
    ])
    expect([first.status, second.status].sort()).toEqual([200, 409])
    await eventually(receiptRecord, (r) => r.refund?.status === "completed")
    expect(await world().balanceOf(sender)).toBe(value)
    await expect(admin("receipt", "retry-refund", "--receipt", receipt.id)).rejects.toThrow(/completed; only a failed one/)
  })
})
