/**
 * Reorganisations deeper than the confirmations on anvil (`anvil_reorg` replaces the last blocks with
 * empty ones; the transactions in them are gone from the chain and from the node's pool), with the
 * watcher and the executor running in process and two confirmations:
 *
 * - a push transfer the payment succeeded with is removed: its receipt is reversed (kept), the
 *   payment goes back to `processing` with `payment.processing`, and succeeds again, recorded once,
 *   when the same transaction is mined again;
 * - the executor's own mined transaction is removed: the payment goes back to `processing`, its
 *   authorization is sent again, and the executor, whose next nonce is no longer the chain's, reads
 *   it again: the next payments are executed too, each buyer debited once.
 */
import { eventuallyFound } from "../../../test/support/Eventually.ts"
import { Chain, GatewayServices, SqlPersistence } from "@paygate/adapters"
import { type PaymentId, ReceiptStore } from "@paygate/domain"
import { Effect, Fiber, Layer } from "effect"
import { randomBytes } from "node:crypto"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { executorJob } from "../../../test/support/ChainJobs.ts"
import { ownCollection } from "../../../test/support/OwnCollection.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { forEachDatabase, type TestPartner, type TestServer, makeTestServer } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings, watcherJob } from "../../../test/support/WatcherJob.ts"

const { anvilAccount, ChainConfig, PushTransfer } = Chain

const confirmations = 2
const world = localChainForFile()

const anvil = (method: string, params: ReadonlyArray<unknown> = []) => anvilRpc(world(), method, params)
const mine = (n: number) => anvil("anvil_mine", [`0x${n.toString(16)}`])
/** Replaces the blocks from `block` to the head with empty ones. */
const reorgFrom = async (block: bigint) => {
  const head = await world().client.getBlockNumber({ cacheTime: 0 })
  await anvil("anvil_reorg", [Number(head - block + 1n), []])
}

forEachDatabase("Reorganisations deeper than the confirmations (anvil)", (database) => {
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
  const servers: Array<TestServer> = []

  /**
   * A server paying with push transfers (`pull` false) or EIP-3009 authorizations, its watcher and executor running;
   * the push one, a deployment beside the other, collects at an address of its own.
   */
  const start = async (pull: boolean) => {
    const settings = watchedSettings(world(), confirmations, pull)
    const chains = await Effect.runPromise(ChainConfig.decode(pull ? settings : ownCollection(settings)))
    const server = await makeTestServer(database, {
      gateway: GatewayServices.settings({ chains: Layer.succeed(ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
    })
    servers.push(server)
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(executorJob))))
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains)))))
    const partner = await server.partner()
    return { server, partner, merchantId: await server.merchant(partner.sandbox, "Reorged Shop"), walletKey: await server.walletKey("sandbox") }
  }
  let push: Awaited<ReturnType<typeof start>>
  let pull: Awaited<ReturnType<typeof start>>

  beforeAll(async () => {
    push = await start(false)
    pull = await start(true)
  }, 120_000)
  afterAll(async () => {
    for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
    for (const server of servers) await server.close()
  })

  type Shop = typeof push
  const gateway = (shop: Shop, method: string, path: string, body?: unknown) =>
    shop.server.request(method, path, { apiKey: shop.walletKey, ...(body === undefined ? {} : { body }) })
  /** A new payment of 12.50 USD and its option for `payer`. */
  const newPayment = async (shop: Shop, payer: Hex) => {
    const created = await shop.server.request("POST", "/v1/payments", {
      apiKey: shop.partner.sandbox,
      body: { merchantId: shop.merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: `reorged-${randomBytes(4).toString("hex")}` }
    })
    expect(created.status).toBe(201)
    const paymentId = created.body.paymentId as string
    const options = await gateway(shop, "POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [`${world().chain.chainId}:${payer}`] })
    return { paymentId, option: options.body.options[0] }
  }
  const status = async (shop: Shop, paymentId: string) =>
    (await shop.server.request("GET", `/v1/payments/${paymentId}`, { apiKey: shop.partner.sandbox })).body
  const statusBecomes = (shop: Shop, paymentId: string, wanted: string) =>
    eventuallyFound(`${paymentId} ${wanted}`, async () => {
      const record = await status(shop, paymentId)
      return record.status === wanted ? record : undefined
    })
  const receiptsOf = (shop: Shop, partner: TestPartner, paymentId: string) =>
    shop.server.run(Effect.gen(function*() {
      return yield* (yield* ReceiptStore).list({ owner: { partnerId: partner.partnerId, mode: "sandbox" }, paymentId: paymentId as PaymentId, after: null, limit: 100 })
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))
  const receiptOf = (shop: Shop, paymentId: string, txHash: string) =>
    eventuallyFound(`a receipt of ${txHash}`, async () =>
      (await receiptsOf(shop, shop.partner, paymentId)).find((r) => r.txHash === txHash.toLowerCase() && r.reversedAt === null))

  it("a push transfer removed after the payment succeeded: receipt reversed, back to processing, succeeded again once mined again", async () => {
    const payer = anvilAccount(7)
    const { paymentId, option } = await newPayment(push, payer.address)
    const fetched = await gateway(push, "POST", `/v1/gateway/payment/${paymentId}/fetch`, { optionId: option.id, data: option.actions[0].data.data })
    const data = fetched.body.actions[0].data.params[0].data as Hex
    expect(PushTransfer.decodeTransferWithReference(data)._tag).toBe("Some")
    // Signed here and kept: a reorganised transaction comes back to the pool in practice; here it is sent again.
    const client = world().client
    const fees = await client.estimateFeesPerGas()
    const raw = await privateKeyToAccount(payer.privateKey).signTransaction({
      type: "eip1559",
      chainId: await client.getChainId(),
      nonce: await client.getTransactionCount({ address: payer.address, blockTag: "pending" }),
      to: world().chain.contracts.usdc,
      data,
      gas: 100_000n,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas
    })
    const hash = await world().client.sendRawTransaction({ serializedTransaction: raw })
    const mined = await world().client.waitForTransactionReceipt({ hash })
    await mine(confirmations - 1)
    const first = await receiptOf(push, paymentId, hash)
    expect(first.outcome).toBe("paid")
    await statusBecomes(push, paymentId, "succeeded")

    await reorgFrom(mined.blockNumber)
    expect(await world().client.getTransactionReceipt({ hash }).catch(() => null)).toBeNull()
    const reopened = await statusBecomes(push, paymentId, "processing")
    expect(reopened.transaction.hash).toBe(hash.toLowerCase())
    const reversed = (await receiptsOf(push, push.partner, paymentId)).find((r) => r.id === first.id)!
    expect(reversed.reversedAt).toEqual(expect.any(Number))
    const events = await outboxEventsOf(push.server, paymentId)
    expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.processing", "payment.succeeded", "payment.processing"])
    expect(events[3]!.payload.stage).toMatchObject({ reorged: true, receipt: { receiptId: first.id, txHash: hash.toLowerCase(), refundableValue: "0" } })
    // Nothing is on chain: it stays processing, and the reversed receipt has nothing to refund.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect((await status(push, paymentId)).status).toBe("processing")
    const refund = await push.server.request("POST", `/v1/receipts/${first.id}/refund`, { apiKey: push.partner.sandbox })
    expect(refund.body.code).toBe("invalid_state")
    const listed = await push.server.request("GET", `/v1/receipts?paymentId=${paymentId}`, { apiKey: push.partner.sandbox })
    expect(listed.body.data.find((r: any) => r.receiptId === first.id).reversedAt).toEqual(expect.any(Number))

    // The same transaction mined again: credited again, once.
    await world().client.sendRawTransaction({ serializedTransaction: raw })
    await world().client.waitForTransactionReceipt({ hash })
    await mine(confirmations - 1)
    const again = await receiptOf(push, paymentId, hash)
    expect(again.id).not.toBe(first.id)
    expect(again.outcome).toBe("paid")
    await statusBecomes(push, paymentId, "succeeded")
    await mine(confirmations)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const all = (await receiptsOf(push, push.partner, paymentId)).filter((r) => r.txHash === hash.toLowerCase())
    expect(all.map((r) => r.reversedAt === null).sort()).toEqual([false, true])
    expect((await outboxEventsOf(push.server, paymentId)).map((e) => e.type)).toEqual([
      "payment.created",
      "payment.processing",
      "payment.succeeded",
      "payment.processing",
      "payment.succeeded"
    ])
  })

  it("the executor's own mined transaction removed: sent again, and the payments after it are executed, each buyer debited once", async () => {
    const buyer = anvilAccount(3)
    const confirmPull = async () => {
      const { paymentId, option } = await newPayment(pull, buyer.address)
      const signature = await Chain.LocalWallet.signOption(option, buyer.privateKey)
      const confirmed = await gateway(pull, "POST", `/v1/gateway/payment/${paymentId}/confirm`, {
        optionId: option.id,
        results: [{ type: "walletRpc", data: [signature] }],
        collectedData: null
      })
      expect(confirmed.status).toBe(200)
      return paymentId
    }
    const before = await world().balanceOf(buyer.address)
    const first = await confirmPull()
    const sent = await eventuallyFound("the executor's transaction", async () => (await status(pull, first)).transaction?.hash as string | undefined)
    const mined = await world().client.waitForTransactionReceipt({ hash: sent as Hex })
    await mine(confirmations - 1)
    await statusBecomes(pull, first, "succeeded")
    await receiptOf(pull, first, sent)
    expect(await world().balanceOf(buyer.address)).toBe(before - 12_500_000n)

    await reorgFrom(mined.blockNumber)
    expect(await world().balanceOf(buyer.address)).toBe(before)
    // The next payments, right away: the executor's next nonce is one past the removed transaction's.
    const second = await confirmPull()
    const third = await confirmPull()
    // The first is still `succeeded` until the watcher sees the reorganisation: done once it succeeded again.
    const succeededTimes = async (paymentId: string) =>
      (await outboxEventsOf(pull.server, paymentId)).filter((e) => e.type === "payment.succeeded").length
    for (const [paymentId, times] of [[first, 2], [second, 1], [third, 1]] as const) {
      await eventuallyFound(`${paymentId} succeeded`, async () => {
        await mine(1)
        return (await status(pull, paymentId)).status === "succeeded" && (await succeededTimes(paymentId)) === times ? true : undefined
      }, 45_000)
    }
    // Sent again by the executor (the test broadcasts nothing). Re-signed with the same nonce and
    // fees, it can be byte for byte the removed transaction: the hash may be the same.
    const resent = (await status(pull, first)).transaction.hash as Hex
    const onChain = await world().client.getTransactionReceipt({ hash: resent })
    expect(onChain.status).toBe("success")
    expect(onChain.blockNumber).toBeGreaterThanOrEqual(mined.blockNumber)
    expect(await world().balanceOf(buyer.address)).toBe(before - 3n * 12_500_000n)
    expect((await outboxEventsOf(pull.server, first)).map((e) => e.type)).toEqual([
      "payment.created",
      "payment.processing",
      "payment.succeeded",
      "payment.processing",
      "payment.succeeded"
    ])
  })
})
