/**
 * A chain read through several RPC providers with a quorum (`QuorumTransport.ts`), on anvils: the
 * honest node (directly and through proxies), a fork serving a diverged history in which the
 * transfer never happened, a fork lagging at the transfer's block, and a provider that is down.
 * A transfer's outcome is `succeeded` only when a quorum of providers agree on its receipt and on
 * the blocks up to its depth; otherwise `pending` or `unknown` (the payment stays `processing`),
 * never `failed`, in every order of the providers; a disagreement is counted and logged.
 */
import { Effect, Exit, Metric, Scope } from "effect"
import { createServer } from "node:net"
import { createPublicClient, type Hex, http } from "viem"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as Anvil from "../../src/chain/Anvil.ts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import * as ViemChainGateway from "../../src/chain/ViemChainGateway.ts"
import * as TransferLogs from "../../src/chain/TransferLogs.ts"
import { ProcessMetrics } from "@paygate/observability"
import { localChainForFile } from "../../../../test/support/LocalChainWorld.ts"
import { sendTokenTransfer } from "../../../../test/support/TokenTransfer.ts"
import { anvilRpc } from "../../../../test/support/WatcherJob.ts"

const world = localChainForFile()
const confirmations = 2
const closeNodes: Array<() => Promise<void>> = []
let transfer: { readonly hash: Hex; readonly block: bigint }
/** The providers by role. */
let honest: string
let diverged: string
let lagging: string
let down: string

const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** An anvil continuing the local chain from `block` on, with blocks of its own after it. */
const fork = async (block: bigint) => {
  const scope = Effect.runSync(Scope.make())
  const node = await Effect.runPromise(
    Scope.provide(scope)(Anvil.start({ forkUrl: world().chain.node.rpcUrl, forkBlockNumber: Number(block), chainId: world().chain.node.chainId }))
  )
  closeNodes.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return node.rpcUrl
}

beforeAll(async () => {
  const chain = world().chain
  const before = await world().client.getBlockNumber({ cacheTime: 0 })
  transfer = await (async () => {
    const hash = await sendTokenTransfer({
      rpcUrl: chain.node.rpcUrl,
      privateKey: anvilAccount(4).privateKey,
      token: chain.contracts.usdc,
      to: chain.collectionAddress,
      value: 1_000_000n
    })
    const receipt = await world().client.getTransactionReceipt({ hash })
    return { hash, block: receipt.blockNumber }
  })()
  expect(transfer.block).toBe(before + 1n)
  // The diverged fork: from the block before the transfer, with five blocks of its own (ahead of the honest node).
  diverged = await fork(before)
  await createPublicClient({ transport: http(diverged) }).request({ method: "anvil_mine" as never, params: ["0x5"] as never })
  lagging = await fork(transfer.block)
  await anvilRpc(world(), "anvil_mine", ["0x3"])
  honest = world().proxy.url
  down = `http://127.0.0.1:${await closedPort()}`
}, 120_000)

afterAll(async () => {
  for (const close of closeNodes) await close()
})

const observeWith = async (urls: ReadonlyArray<string>, quorum?: number) => {
  const base = world().settings()
  const settings = {
    ...base,
    chains: base.chains.map((c) => ({
      ...c,
      requiredConfirmations: confirmations,
      rpcUrl: urls[0]!,
      additionalRpcUrls: urls.slice(1),
      ...(quorum === undefined ? {} : { rpcQuorum: quorum })
    }))
  }
  const chains = await Effect.runPromise(ChainConfig.decode(settings))
  const gateway = await Effect.runPromise(
    ViemChainGateway.make({ rpcTimeout: "2 seconds" }).pipe(
      Effect.provideService(ChainConfig.ChainsConfig, chains),
      Effect.provide(SignatureRecovery.layerInline),
      Effect.scoped
    )
  )
  return Effect.runPromise(gateway.observe(base.assets[0]!.assetId, transfer.hash))
}

const permutations = <A>(items: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> =>
  items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]))

const disagreements = () =>
  Effect.runPromise(Effect.map(Metric.value(ProcessMetrics.chainRpcDisagreements(`eip155:${world().chain.node.chainId}`, "eth_getTransactionReceipt")), (s) => s.count))

it("one honest provider among a diverged one and a down one: never succeeded, never failed, the disagreement counted", async () => {
  const before = await disagreements()
  for (const order of permutations([honest, diverged, down])) {
    expect(await observeWith(order)).toBe("unknown")
  }
  expect(await disagreements()).toBeGreaterThanOrEqual(before + 6)
}, 120_000)

it("one provider lagging at the transfer's block cannot let the one ahead count the confirmations alone", async () => {
  for (const order of permutations([honest, diverged, lagging])) {
    expect(["unknown", "pending"]).toContain(await observeWith(order))
  }
  // With a provider down instead of the diverged one, the quorum's head is the lagging one's: not deep enough yet.
  for (const order of permutations([honest, lagging, down])) {
    expect(await observeWith(order)).toBe("pending")
  }
}, 120_000)

it("two honest providers agree: succeeded whatever the third serves, in every order", async () => {
  const second = world().chain.node.rpcUrl
  for (const odd of [diverged, lagging, down]) {
    for (const order of permutations([honest, second, odd])) {
      expect(await observeWith(order)).toBe("succeeded")
    }
  }
  // Three of three: one provider down is enough to wait.
  expect(await observeWith([honest, second, down], 3)).toBe("unknown")
  // A single provider, as before.
  expect(await observeWith([honest])).toBe("succeeded")
}, 180_000)

it("the watcher's reads need the quorum too: the diverged history alone never shows the transfer, and two honest ones do", async () => {
  const base = world().settings()
  const watched = async (urls: ReadonlyArray<string>) => {
    const chains = await Effect.runPromise(ChainConfig.decode({
      ...base,
      chains: base.chains.map((c) => ({ ...c, requiredConfirmations: confirmations, rpcUrl: urls[0]!, additionalRpcUrls: urls.slice(1) }))
    }))
    const [chain] = TransferLogs.watchedChains(chains)
    const block = Number(transfer.block)
    return Effect.runPromise(Effect.result(TransferLogs.transfersIn(chain!, block, block)))
  }
  const split = await watched([honest, diverged, down])
  expect(split._tag).toBe("Failure")
  const agreed = await watched([honest, world().chain.node.rpcUrl, diverged])
  expect(agreed._tag === "Success" ? agreed.success.map((t) => t.txHash) : agreed).toEqual([transfer.hash.toLowerCase()])
}, 60_000)
