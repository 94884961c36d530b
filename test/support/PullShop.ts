/**
 * A test server taking EIP-3009 pull payments on the local chain, its executor and watcher running
 * in process over `chains`: confirms a 12.50 USD payment signed by a buyer and follows it.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { Effect, Fiber, Layer } from "effect"
import { randomBytes } from "node:crypto"
import type { Hex, TransactionReceipt } from "viem"
import { expect } from "vitest"
import { executorJob } from "./ChainJobs.ts"
import { eventuallyFound } from "./Eventually.ts"
import type { LocalChainWorld } from "./LocalChainWorld.ts"
import { outboxEventsOf } from "./OutboxEvents.ts"
import { makeTestServer, type TestDatabase, type TestPartner, type TestServer } from "./TestServer.ts"
import { watcherJob } from "./WatcherJob.ts"

/** A running pull-payment shop; see {@link startPullShop}. */
export interface PullShop {
  readonly server: TestServer
  readonly partner: TestPartner
  /** The payment as `GET /v1/payments/{id}` answers it. */
  readonly status: (paymentId: string) => Promise<any>
  readonly statusBecomes: (paymentId: string, wanted: string) => Promise<any>
  /** A confirmed payment by `buyer`, the executor's transaction hash and its receipt once mined. */
  readonly confirmPull: (buyer: Chain.AnvilAccount) => Promise<{ readonly paymentId: string; readonly sent: string; readonly mined: TransactionReceipt }>
  /** The types of the payment's outbox events, in order. */
  readonly eventTypes: (paymentId: string) => Promise<ReadonlyArray<string>>
  readonly close: () => Promise<void>
}

/** Confirms a waiting payment as a wallet app (`walletKey`) would: the first option for `buyer`, signed with its key. */
export const confirmWithWallet = async (server: TestServer, walletKey: string, world: LocalChainWorld, paymentId: string, buyer: Chain.AnvilAccount) => {
  const options = await server.request("POST", `/v1/gateway/payment/${paymentId}/options`, {
    apiKey: walletKey,
    body: { accounts: [`${world.chain.chainId}:${buyer.address}`] }
  })
  const option = options.body.options[0]
  const signature = await Chain.LocalWallet.signOption(option, buyer.privateKey)
  const confirmed = await server.request("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
    apiKey: walletKey,
    body: { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null }
  })
  expect(confirmed.status).toBe(200)
}

/** Starts the shop on `database` over `chains` (the executor and the watcher forked in). */
export const startPullShop = async (world: LocalChainWorld, database: TestDatabase, chains: Chain.ChainConfig.Chains): Promise<PullShop> => {
  const server = await makeTestServer(database, {
    gateway: GatewayServices.settings({ chains: Layer.succeed(Chain.ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
  })
  const fibers = [
    await server.run(Effect.forkDetach(Layer.launch(executorJob))),
    await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains))))
  ]
  const partner = await server.partner()
  const merchantId = await server.merchant(partner.sandbox, "Pull Shop")
  const walletKey = await server.walletKey("sandbox")
  const status = async (paymentId: string) => (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })).body
  return {
    server,
    partner,
    status,
    statusBecomes: (paymentId, wanted) =>
      eventuallyFound(`${paymentId} ${wanted}`, async () => {
        const record = await status(paymentId)
        return record.status === wanted ? record : undefined
      }),
    confirmPull: async (buyer) => {
      const created = await server.request("POST", "/v1/payments", {
        apiKey: partner.sandbox,
        body: { merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: `pull-${randomBytes(4).toString("hex")}` }
      })
      expect(created.status).toBe(201)
      const paymentId = created.body.paymentId as string
      await confirmWithWallet(server, walletKey, world, paymentId, buyer)
      const sent = await eventuallyFound("the executor's transaction", async () => (await status(paymentId)).transaction?.hash as string | undefined)
      const mined = await world.client.waitForTransactionReceipt({ hash: sent as Hex })
      return { paymentId, sent, mined }
    },
    eventTypes: async (paymentId) => (await outboxEventsOf(server, paymentId)).map((e) => e.type),
    close: async () => {
      for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
      await server.close()
    }
  }
}
