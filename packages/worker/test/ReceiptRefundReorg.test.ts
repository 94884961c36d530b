/**
 * A receipt's refund caught in a reorganisation deeper than the confirmations (anvil, two
 * confirmations; watcher and payout jobs in process). The refunded transfer and the refund's own
 * transaction are removed together: the watcher reverses the receipt, the payout job broadcasts its
 * recorded refund again (its nonce is free again) and follows it to the end. When the buyer's transfer
 * is mined again it is a new receipt, and that one cannot be refunded a second time.
 */
import { Chain, GatewayServices, SqlPersistence } from "@paygate/adapters"
import { type Receipt, type ReceiptId, ReceiptStore } from "@paygate/domain"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { erc20Abi, encodeFunctionData, type Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { payoutJobs } from "../../../test/support/ChainJobs.ts"
import { eventuallyFound } from "../../../test/support/Eventually.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { forEachDatabase, makeTestServer, type TestServer } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings, watcherJob } from "../../../test/support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain

const confirmations = 2
const world = localChainForFile()
const anvil = (method: string, params: ReadonlyArray<unknown> = []) => anvilRpc(world(), method, params)
const mine = (n: number) => anvil("anvil_mine", [`0x${n.toString(16)}`])

forEachDatabase("A receipt's refund and its transfer reorganised away (anvil)", (database) => {
  let server: TestServer
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []

  beforeAll(async () => {
    const chains = await Effect.runPromise(ChainConfig.decode(watchedSettings(world(), confirmations, false)))
    server = await makeTestServer(database, {
      gateway: GatewayServices.settings({ chains: Layer.succeed(ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
    })
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains)))))
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(payoutJobs()))))
  }, 120_000)
  afterAll(async () => {
    for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
    await server?.close()
  })

  const receipts = () =>
    server.run(Effect.gen(function*() {
      return yield* (yield* ReceiptStore).list({ owner: "operator", after: null, limit: 100 })
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))
  const find = (id: string) =>
    server.run(Effect.gen(function*() {
      return Option.getOrThrow(yield* (yield* ReceiptStore).find(id as ReceiptId))
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))
  // What the watcher had done when a wait ran out: its cursor against the head, and the receipt as stored.
  const watcherState = async (id: string) => {
    const cursors = await server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT chain_id, next_block::text AS next_block FROM chain_cursors`).pipe(Effect.orDie))
    const head = await world().client.getBlockNumber({ cacheTime: 0 })
    return `head ${head}, cursors ${JSON.stringify(cursors)}, receipt ${JSON.stringify(await find(id), (_, v) => (typeof v === "bigint" ? v.toString() : v))}`
  }
  const receiptBecomes = (what: string, id: string, test: (r: Receipt) => boolean) =>
    eventuallyFound(what, async () => {
      await mine(1)
      const receipt = await find(id)
      return test(receipt) ? receipt : undefined
    }, 45_000).catch(async (error: Error) => {
      throw new Error(`${error.message}; ${await watcherState(id)}`)
    })

  it("the refund completes once; the transfer mined again cannot be refunded again: the buyer is paid back once", async () => {
    const buyer = anvilAccount(5)
    const token = world().chain.contracts.usdc
    const client = world().client
    const value = 3_000_000n
    const before = await client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [buyer.address] })
    // A plain transfer to the collection address (no payment): an unmatched receipt, the operator's.
    const fees = await client.estimateFeesPerGas()
    const raw = await privateKeyToAccount(buyer.privateKey).signTransaction({
      type: "eip1559",
      chainId: await client.getChainId(),
      nonce: await client.getTransactionCount({ address: buyer.address, blockTag: "pending" }),
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [world().chain.collectionAddress, value] }),
      gas: 100_000n,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas
    })
    const hash = await client.sendRawTransaction({ serializedTransaction: raw })
    const inbound = await client.waitForTransactionReceipt({ hash })
    await mine(confirmations - 1)
    const ofTransfer = async () => (await receipts()).filter((r) => r.txHash === hash.toLowerCase())
    const first = await eventuallyFound("the unmatched receipt", async () => (await ofTransfer()).find((r) => r.reversedAt === null))
    expect(first.outcome).toBe("unmatched")

    await server.admin("receipt", "refund", "--receipt", first.id)
    const sent = await eventuallyFound("the refund's transaction", async () => (await find(first.id)).refund?.transfer ?? undefined)
    await client.waitForTransactionReceipt({ hash: sent.txHash as Hex })

    // Both transactions gone: the blocks from the buyer's transfer on are replaced by empty ones.
    const head = await client.getBlockNumber({ cacheTime: 0 })
    await anvil("anvil_reorg", [Number(head - inbound.blockNumber + 1n), []])
    const reversed = await receiptBecomes("the receipt reversed and its refund completed", first.id, (r) =>
      r.reversedAt !== null && r.refund?.status === "completed")
    expect(reversed.refund!.transfer!.txHash).toBe(sent.txHash)
    expect((await client.getTransactionReceipt({ hash: sent.txHash as Hex })).status).toBe("success")

    // The buyer's transfer mined again: a new receipt, not refundable a second time.
    await client.sendRawTransaction({ serializedTransaction: raw })
    await client.waitForTransactionReceipt({ hash })
    await mine(confirmations - 1)
    const again = await eventuallyFound("the receipt read again", async () => (await ofTransfer()).find((r) => r.reversedAt === null))
    expect(again.id).not.toBe(first.id)
    await expect(server.admin("receipt", "refund", "--receipt", again.id)).rejects.toThrow(/already refunded/)
    await expect(server.admin("receipt", "retry-refund", "--receipt", first.id)).rejects.toThrow(/completed/)
    await mine(3)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect((await find(again.id)).refund).toBeNull()
    expect(await client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [buyer.address] })).toBe(before)
  })
})
