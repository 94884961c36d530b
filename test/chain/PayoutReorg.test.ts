/**
 * A refund's transfer reorganised away before its confirmations, on anvil (two confirmations; the
 * payout jobs running in process): the worker sees it gone and sends it again, once; the payer is
 * paid once, the collection address debited once, the ledger posts the payout once, and the payout
 * completes with the transfer on the new chain.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { type PaymentId, PayoutRepository } from "@paygate/domain"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutJobs } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type Services, type TestPartner, useTestServer } from "../support/TestServer.ts"
import { anvilRpc } from "../support/WatcherJob.ts"

const { ChainConfig } = Chain

const confirmations = 2
const world = localChainForFile()

forEachDatabase("A payout reorganised away before its confirmations (anvil)", (database) => {
  const server = useTestServer(database, () => {
    const settings = world().settings()
    return {
      gateway: GatewayServices.settings({
        chains: Layer.orDie(ChainConfig.layer({ ...settings, chains: settings.chains.map((c) => ({ ...c, requiredConfirmations: confirmations })) })),
        secret: new Uint8Array(randomBytes(32))
      })
    }
  })
  let partner: TestPartner
  let merchantId: string
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const record = async (paymentId: string) => (await api("GET", `/v1/payments/${paymentId}`)).body
  const launch = async (layer: Layer.Layer<never, never, Services>) => {
    jobs.push(await server.run(Effect.forkDetach(Layer.launch(layer))))
  }

  beforeAll(async () => {
    await launch(payoutJobs())
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Refunding Shop")
  }, 120_000)
  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  it("a refund's transfer removed before its confirmations is sent again once: the payer is paid once", async () => {
    const payer = privateKeyToAccount(generatePrivateKey()).address
    const collection = world().chain.collectionAddress
    const amount = 2_000_000n
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    await server.succeed(paymentId, { account: `${world().chain.chainId}:${payer}`, asset: world().chain.usdcAssetId, tokenAmount: amount })
    const collected = await world().balanceOf(collection)
    expect((await api("POST", "/v1/refunds", { paymentId })).status).toBe(201)

    const first = (await eventually(() => record(paymentId), (r) => typeof r.refund?.txHash === "string")).refund.txHash as Hex
    const mined = await world().client.waitForTransactionReceipt({ hash: first })
    expect(await world().balanceOf(payer)).toBe(amount)
    // One confirmation of two: the block carrying it is replaced by an empty one.
    const head = await world().client.getBlockNumber({ cacheTime: 0 })
    await anvilRpc(world(), "anvil_reorg", [Number(head - mined.blockNumber + 1n), []])
    expect(await world().balanceOf(payer)).toBe(0n)
    expect((await record(paymentId)).refund.status).toBe("pending")

    const done = await eventually(async () => {
      await anvilRpc(world(), "anvil_mine", ["0x1"])
      return record(paymentId)
    }, (r) => r.refund?.status === "completed", 45_000)
    // Sent again (the same signed transfer, or a new one): on the new chain, not in the replaced block.
    expect((await world().client.getTransactionReceipt({ hash: done.refund.txHash as Hex })).blockHash).not.toBe(mined.blockHash)
    // Mined deeper still: nothing is sent a third time.
    await anvilRpc(world(), "anvil_mine", ["0x4"])
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await world().balanceOf(payer)).toBe(amount)
    expect(await world().balanceOf(collection)).toBe(collected - amount)
    const payout = Option.getOrThrow(await server.run(PayoutRepository.use((repo) => repo.find({ paymentId: paymentId as PaymentId, kind: "refund" }))))
    expect(payout.status).toBe("completed")
    expect((await record(paymentId)).refund.txHash).toBe(done.refund.txHash)
    // The ledger posted the payout once, balanced: what the chain says it moved.
    const posted = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly moved: string; readonly total: string }>`SELECT
          sum(CASE WHEN e.amount > 0 THEN e.amount ELSE 0 END)::text AS moved, sum(e.amount)::text AS total
        FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
        WHERE t.source = 'payout' AND t.source_id = ${`${payout.paymentId}:${payout.kind}:${payout.leg}`}
        GROUP BY t.id`
    }).pipe(Effect.orDie))
    expect(posted).toEqual([{ moved: String(amount), total: "0" }])
  }, 90_000)
})
