/**
 * A reorganisation deeper than the chain watcher's rewind window (three blocks here; 64 by default),
 * on anvil: a transfer the watcher recorded well below the window is removed, and another one is
 * mined in the blocks that replace it. The watcher traces the reorganisation back to where the chain
 * forked (its checkpoints), reverses the removed receipt, records the new transfer, and says so
 * loudly (`paygate_chain_deep_reorgs_total{window="beyond"}`): nothing is lost in silence.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { ProcessMetrics } from "@paygate/observability"
import { Effect, Fiber, Layer, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { encodeFunctionData, erc20Abi } from "viem"
import { afterAll, beforeAll, expect, it } from "vitest"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { forEachDatabase, makeTestServer, type TestServer } from "../../../test/support/TestServer.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { anvilRpc, watchedSettings, watcherJob } from "../../../test/support/WatcherJob.ts"
import { eventually } from "../../../test/support/Eventually.ts"

const { anvilAccount, ChainConfig } = Chain

const confirmations = 2
const window = 3
const world = localChainForFile()

forEachDatabase("A reorganisation deeper than the watcher's rewind window (anvil)", (database) => {
  let server: TestServer
  let fiber: Fiber.Fiber<unknown, unknown>

  beforeAll(async () => {
    const chains = await Effect.runPromise(ChainConfig.decode(watchedSettings(world(), confirmations, false)))
    server = await makeTestServer(database, {
      gateway: GatewayServices.settings({ chains: Layer.succeed(ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
    })
    fiber = await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains, { reorgRewindBlocks: window }))))
  }, 120_000)
  afterAll(async () => {
    await Effect.runPromise(Fiber.interrupt(fiber))
    await server.close()
  })

  const receipts = () =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly tx_hash: string; readonly reversed_at: unknown }>`SELECT tx_hash, reversed_at FROM chain_receipts`
    }).pipe(Effect.orDie))
  const nextBlock = () =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly next_block: unknown }>`SELECT next_block FROM chain_cursors`
      return Number(rows[0]?.next_block ?? 0)
    }).pipe(Effect.orDie))
  const beyond = () =>
    Effect.runPromise(Effect.map(Metric.value(ProcessMetrics.chainDeepReorgs(`eip155:${world().chain.node.chainId}`, "beyond")), (s) => s.count))

  it("the removed receipt is reversed, the transfer in the new blocks recorded, and an alert raised", async () => {
    const chain = world().chain
    const payer = anvilAccount(5)
    // The watcher has read the chain so far: a checkpoint before the blocks to be replaced.
    const start = await world().client.getBlockNumber({ cacheTime: 0 })
    await eventually(nextBlock, (next) => next > Number(start) - confirmations + 1)
    const removed = await sendTokenTransfer({
      rpcUrl: chain.node.rpcUrl,
      privateKey: payer.privateKey,
      token: chain.contracts.usdc,
      to: chain.collectionAddress,
      value: 3_000_000n
    })
    const minedAt = (await world().client.getTransactionReceipt({ hash: removed })).blockNumber
    await anvilRpc(world(), "anvil_mine", ["0xa"])
    const head = await world().client.getBlockNumber({ cacheTime: 0 })
    await eventually(receipts, (rows) => rows.some((r) => r.tx_hash === removed.toLowerCase()))
    await eventually(nextBlock, (next) => next > Number(head) - confirmations + 1)
    const alertsBefore = await beyond()

    // The blocks from the transfer's on are replaced; the first new one carries another transfer of the payer.
    const depth = Number(head - minedAt + 1n)
    expect(depth).toBeGreaterThan(window + confirmations)
    await anvilRpc(world(), "anvil_reorg", [depth, [[{
      from: payer.address,
      to: chain.contracts.usdc,
      gas: "0x186a0",
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [chain.collectionAddress, 4_000_000n] })
    }, 0]]])
    expect(await world().client.getTransactionReceipt({ hash: removed }).catch(() => null)).toBeNull()
    const replacement = (await world().client.getBlock({ blockNumber: minedAt })).transactions[0]
    expect(replacement).toBeDefined()

    await eventually(receipts, (rows) => rows.some((r) => r.tx_hash === replacement!.toLowerCase()))
    const rows = await receipts()
    expect(rows.find((r) => r.tx_hash === removed.toLowerCase())!.reversed_at).not.toBeNull()
    expect(rows.filter((r) => r.tx_hash === replacement!.toLowerCase())).toHaveLength(1)
    expect(await beyond()).toBe(alertsBefore + 1)
  }, 90_000)
})
