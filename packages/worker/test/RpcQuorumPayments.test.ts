/**
 * A pull payment on a chain read through three RPC providers, two of which must agree (anvil, the
 * executor and the watcher running in process). After the executor's transaction is mined, one
 * provider serves a diverged history (a fork where it never happened) and another is down, then
 * lags at the transaction's block: the payment stays `processing` (never `succeeded`, never
 * `failed`) and the disagreement is counted; once two providers agree again it succeeds, once.
 */
import { Chain } from "@paygate/adapters"
import { ProcessMetrics } from "@paygate/observability"
import { Effect, Exit, Metric, Scope } from "effect"
import { createPublicClient, http } from "viem"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type CuttableProxy, startProxy } from "../../../test/support/CuttableProxy.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { type PullShop, startPullShop } from "../../../test/support/PullShop.ts"
import { forEachDatabase } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings } from "../../../test/support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain
const { chainRpcDisagreements } = ProcessMetrics

const confirmations = 2
const world = localChainForFile()

const mine = (n: number) => anvilRpc(world(), "anvil_mine", [`0x${n.toString(16)}`])

/** An anvil continuing the local chain from `block` on, with `ahead` blocks of its own. */
const fork = async (scope: Scope.Closeable, block: bigint, ahead: number) => {
  const node = await Effect.runPromise(Scope.provide(scope)(
    Chain.Anvil.start({ forkUrl: world().chain.node.rpcUrl, forkBlockNumber: Number(block), chainId: world().chain.node.chainId })
  ))
  if (ahead > 0) await createPublicClient({ transport: http(node.rpcUrl) }).request({ method: "anvil_mine" as never, params: [`0x${ahead.toString(16)}`] as never })
  return node.rpcUrl
}

forEachDatabase("A pull payment read through a quorum of RPC providers (anvil)", (database) => {
  const scope = Effect.runSync(Scope.make())
  const proxies: Array<CuttableProxy> = []
  let shop: PullShop
  beforeAll(async () => {
    proxies.push(await startProxy(world().chain.node.rpcUrl), await startProxy(world().chain.node.rpcUrl))
    const settings = watchedSettings(world(), confirmations, true)
    const chains = await Effect.runPromise(ChainConfig.decode({
      ...settings,
      chains: settings.chains.map((c) => ({ ...c, additionalRpcUrls: proxies.map((p) => p.url) }))
    }))
    shop = await startPullShop(world(), database, chains)
  }, 120_000)
  afterAll(async () => {
    await shop.close()
    for (const proxy of proxies) await proxy.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  const status = (paymentId: string) => shop.status(paymentId)

  const disagreements = () =>
    Effect.runPromise(Effect.map(Metric.value(chainRpcDisagreements(world().chain.chainId, "eth_getTransactionReceipt")), (s) => s.count))
  /** Watches the payment for `ms`: it must stay `processing` throughout. */
  const staysProcessing = async (paymentId: string, ms: number) => {
    const until = Date.now() + ms
    while (Date.now() < until) {
      expect((await status(paymentId)).status).toBe("processing")
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  it("stays processing while no two providers agree, and succeeds once they do", async () => {
    const buyer = anvilAccount(7)
    const before = await world().balanceOf(buyer.address)
    const [second, third] = proxies as [CuttableProxy, CuttableProxy]
    const { paymentId, sent, mined } = await shop.confirmPull(buyer)
    // A provider now serves a history where the transaction never happened, another is down.
    second.retarget(await fork(scope, mined.blockNumber - 1n, 4))
    third.cut()
    const disagreedBefore = await disagreements()
    await mine(3)
    await staysProcessing(paymentId, 3_000)
    expect(await disagreements()).toBeGreaterThan(disagreedBefore)
    // The down one comes back lagging at the transaction's block: it has the receipt, not the confirmations.
    third.retarget(await fork(scope, mined.blockNumber, 0))
    third.restore()
    await staysProcessing(paymentId, 3_000)
    // It catches up: two providers agree.
    third.retarget(world().chain.node.rpcUrl)
    await shop.statusBecomes(paymentId, "succeeded")
    expect((await status(paymentId)).transaction.hash).toBe(sent.toLowerCase())
    expect(await world().balanceOf(buyer.address)).toBe(before - 12_500_000n)
    expect(await shop.eventTypes(paymentId)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  }, 120_000)
})
