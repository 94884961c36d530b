/**
 * Reorganisations of a pull payment on anvil (two confirmations; the executor and the watcher running
 * in process), besides those deeper than the confirmations (`DeepReorg.test.ts`):
 *
 * - the executor's transaction reorganised away before its confirmations: the payment never leaves
 *   `processing`, its authorization is sent again, and it succeeds once, the buyer debited once;
 * - the same once the chain is past the authorization's `validBefore`: the payment fails, and the
 *   buyer keeps the money;
 * - a reorganisation of the blocks after the confirmations were reached: nothing changes (the
 *   payment stays `succeeded`, its receipt is not reversed, no event).
 */
import { Chain, SqlPersistence } from "@paygate/adapters"
import { type PaymentId, ReceiptStore } from "@paygate/domain"
import { Effect } from "effect"
import type { Hex } from "viem"
import { afterAll, beforeAll, expect, it } from "vitest"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { eventuallyFound } from "../../../test/support/Eventually.ts"
import { type PullShop, startPullShop } from "../../../test/support/PullShop.ts"
import { forEachDatabase } from "../../../test/support/TestServer.ts"
import { anvilRpc, watchedSettings } from "../../../test/support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain

const confirmations = 2

forEachDatabase("Reorganisations of a pull payment (anvil)", (database) => {
  // A chain of its own: the last test moves the chain's clock a day ahead.
  const world = localChainForFile()
  const anvil = (method: string, params: ReadonlyArray<unknown> = []) => anvilRpc(world(), method, params)
  const mine = (n: number) => anvil("anvil_mine", [`0x${n.toString(16)}`])
  /** Replaces the blocks from `block` to the head with empty ones. */
  const reorgFrom = async (block: bigint) => {
    const head = await world().client.getBlockNumber({ cacheTime: 0 })
    await anvil("anvil_reorg", [Number(head - block + 1n), []])
  }

  let shop: PullShop
  beforeAll(async () => {
    shop = await startPullShop(world(), database, await Effect.runPromise(ChainConfig.decode(watchedSettings(world(), confirmations, true))))
  }, 120_000)
  afterAll(() => shop.close())

  const status = (paymentId: string) => shop.status(paymentId)
  const eventTypes = (paymentId: string) => shop.eventTypes(paymentId)
  const receiptsOf = (paymentId: string) =>
    shop.server.run(Effect.gen(function*() {
      return yield* (yield* ReceiptStore).list({ owner: { partnerId: shop.partner.partnerId, mode: "sandbox" }, paymentId: paymentId as PaymentId, after: null, limit: 100 })
    }).pipe(Effect.provide(SqlPersistence.layer), Effect.orDie))

  it("reorganised away before its confirmations: still processing, sent again, succeeded once", async () => {
    const buyer = anvilAccount(3)
    const before = await world().balanceOf(buyer.address)
    const { paymentId, sent, mined } = await shop.confirmPull(buyer)
    // One confirmation of two: not final yet.
    expect((await status(paymentId)).status).toBe("processing")
    await reorgFrom(mined.blockNumber)
    expect(await world().balanceOf(buyer.address)).toBe(before)
    expect((await status(paymentId)).status).toBe("processing")
    await eventuallyFound(`${paymentId} succeeded`, async () => {
      await mine(1)
      return (await status(paymentId)).status === "succeeded" ? true : undefined
    }, 45_000)
    expect((await status(paymentId)).transaction.hash).not.toBe(sent.toLowerCase())
    expect(await world().balanceOf(buyer.address)).toBe(before - 12_500_000n)
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  }, 90_000)

  it("a reorganisation of the blocks after the confirmations changes nothing", async () => {
    const buyer = anvilAccount(4)
    const { paymentId, sent, mined } = await shop.confirmPull(buyer)
    await mine(confirmations - 1)
    await shop.statusBecomes(paymentId, "succeeded")
    const receipt = await eventuallyFound("its receipt", async () => (await receiptsOf(paymentId)).find((r) => r.txHash === sent.toLowerCase()))
    // The blocks above the confirmations are replaced: the transfer's block and the one confirming it stay.
    await mine(3)
    await reorgFrom(mined.blockNumber + BigInt(confirmations))
    expect((await world().client.getTransactionReceipt({ hash: sent as Hex })).blockHash).toBe(mined.blockHash)
    await mine(confirmations + 1)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect((await status(paymentId)).status).toBe("succeeded")
    expect((await receiptsOf(paymentId)).map((r) => [r.id, r.reversedAt])).toEqual([[receipt.id, null]])
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
  }, 90_000)

  it("reorganised away once the chain is past the authorization's validBefore: failed, the buyer keeps the money", async () => {
    const buyer = anvilAccount(6)
    const before = await world().balanceOf(buyer.address)
    const { paymentId, mined } = await shop.confirmPull(buyer)
    // The replacing blocks are a day later: the authorization can no longer be used.
    await reorgFrom(mined.blockNumber)
    await anvil("evm_increaseTime", [86_400])
    await eventuallyFound(`${paymentId} failed`, async () => {
      await mine(1)
      const record = await status(paymentId)
      expect(record.status).not.toBe("succeeded")
      return record.status === "failed" ? true : undefined
    }, 45_000)
    expect(await world().balanceOf(buyer.address)).toBe(before)
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.processing", "payment.failed"])
  }, 90_000)
})
