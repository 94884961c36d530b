/**
 * A reorganisation landing while the watcher reads a range (anvil, two confirmations): the chain is
 * reorganised from below the range right after the round checked that the block before the range
 * is unchanged. The round must not record the new blocks as a continuation of the old ones: the
 * receipt in the removed blocks is reversed.
 */
import { Chain, GatewayServices, SqlPersistence } from "@paygate/adapters"
import { type ReceiptId, ReceiptStore } from "@paygate/domain"
import { Effect, Fiber, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { createPublicClient, custom, type PublicClient } from "viem"
import { afterAll, beforeAll, expect, it } from "vitest"
import { eventuallyFound } from "../../../test/support/Eventually.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { forEachDatabase, makeTestServer, type TestServer } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings, watcherJob } from "../../../test/support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain

const confirmations = 2
const world = localChainForFile()
const anvil = (method: string, params: ReadonlyArray<unknown> = []) => anvilRpc(world(), method, params)
const mine = (n: number) => anvil("anvil_mine", [`0x${n.toString(16)}`])

/**
 * The watcher's view of the local chain. Once armed with a head, the first round that sees it runs
 * `act` right after its first block read (the check of the block before its range).
 */
const tripwire = () => {
  let armed: { readonly head: bigint; readonly act: () => Promise<unknown> } | undefined
  let due = false
  const client = createPublicClient({
    transport: custom({
      request: async ({ method, params }) => {
        const result = await world().client.request({ method, params } as never)
        if (method === "eth_blockNumber" && armed !== undefined && BigInt(result as string) >= armed.head) due = true
        else if (method === "eth_getBlockByNumber" && due && armed !== undefined) {
          const { act } = armed
          armed = undefined
          due = false
          await act()
        }
        return result
      }
    })
  }) as unknown as PublicClient
  /** Arms the wire; the promise resolves once `act` has run. */
  const arm = (head: bigint, act: () => Promise<unknown>) =>
    new Promise<void>((resolve, reject) => {
      armed = { head, act: () => act().then(() => resolve(), reject) }
    })
  return { client, arm }
}

forEachDatabase("A reorganisation while the watcher reads (anvil)", (database) => {
  let server: TestServer
  let fiber: Fiber.Fiber<unknown, unknown>
  const wire = tripwire()

  beforeAll(async () => {
    const chains = await Effect.runPromise(ChainConfig.decode(watchedSettings(world(), confirmations, false)))
    server = await makeTestServer(database, {
      gateway: GatewayServices.settings({ chains: Layer.succeed(ChainConfig.ChainsConfig, chains), secret: new Uint8Array(randomBytes(32)) })
    })
    const watched = Chain.TransferLogs.watchedChains(chains).map((chain) => ({ ...chain, client: wire.client }))
    fiber = await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains, {}, watched))))
  }, 120_000)
  afterAll(async () => {
    if (fiber !== undefined) await Effect.runPromise(Fiber.interrupt(fiber))
    await server?.close()
  })

  const find = (id: string) =>
    server.run(Effect.gen(function*() {
      return Option.getOrThrow(yield* (yield* ReceiptStore).find(id as ReceiptId))
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))
  const receiptOf = (txHash: string) =>
    server.run(Effect.gen(function*() {
      const listed = yield* (yield* ReceiptStore).list({ owner: "operator", after: null, limit: 100 })
      return listed.find((r) => r.txHash === txHash.toLowerCase())
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))

  it("a transfer removed by a reorganisation during a read is reversed, not kept as if its block were still there", async () => {
    const client = world().client
    const hash = await sendTokenTransfer({
      rpcUrl: world().chain.node.rpcUrl,
      privateKey: anvilAccount(6).privateKey,
      token: world().chain.contracts.usdc,
      to: world().chain.collectionAddress,
      value: 2_000_000n
    })
    const inbound = await client.waitForTransactionReceipt({ hash })
    await mine(confirmations - 1)
    const recorded = await eventuallyFound("the unmatched receipt", () => receiptOf(hash))
    expect(recorded.outcome).toBe("unmatched")

    // The next round with a new confirmed block reads on after the chain below it was replaced.
    const head = await client.getBlockNumber({ cacheTime: 0 })
    const reorganised = wire.arm(head + 2n, async () => {
      const now = await client.getBlockNumber({ cacheTime: 0 })
      await anvil("anvil_reorg", [Number(now - inbound.blockNumber + 1n), []])
    })
    await mine(2)
    // Nothing is mined until the reorganisation is done: a block mined between its reading of the
    // head and its call would leave the transfer's block in place.
    await reorganised
    const reversed = await eventuallyFound("the receipt reversed", async () => {
      await mine(1)
      const receipt = await find(recorded.id)
      return receipt.reversedAt !== null ? receipt : undefined
    }, 20_000)
    expect(reversed.txHash).toBe(hash.toLowerCase())
    expect(await client.getTransactionReceipt({ hash }).catch(() => null)).toBeNull()
  })
})
