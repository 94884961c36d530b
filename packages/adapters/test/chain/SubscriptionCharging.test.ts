/**
 * The domain's `SubscriptionCharges` over the real adapters: the SQL store (every database under
 * test) and the subscription vault on anvil, in real time with periods of a few seconds. A payer is
 * subscribed, charged each period, short of funds once (retried, then charged), and the subscription
 * ends; another revokes the allowance, and the contract cancels it. The books and the chain agree.
 */
import {
  ChargePolicy,
  type Plan,
  PlanRepository,
  SignedPermit,
  type Subscription,
  SubscriptionChain,
  SubscriptionCharges,
  type SubscriptionId,
  SubscriptionRepository,
  SubscriptionTerms
} from "@paygate/domain"
import { subscriptionFixture } from "@paygate/domain/testing"
import { Context, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { type Address, createPublicClient, createWalletClient, encodeFunctionData, http, type PublicClient } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { SubscriptionVault, TestPermit2, TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import { permit2Address } from "../../src/chain/Permit2.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import { subscriptionSpender, subscriptionTermsHash } from "../../src/chain/SubscriptionVault.ts"
import * as ViemSubscriptionChain from "../../src/chain/ViemSubscriptionChain.ts"
import * as SqlPlanRepository from "../../src/SqlPlanRepository.ts"
import * as SqlSubscriptionRepository from "../../src/SqlSubscriptionRepository.ts"
import { type AdapterServices, adapterLayer } from "../support/AdapterSuite.ts"
import { newMerchant, newPartner, newPlan } from "../support/Fixtures.ts"
import { databasesUnderTest } from "../support/TestDatabase.ts"
import { newPermit2Payer, sendCall, type TestAccount } from "../../../../test/support/Permit2Payer.ts"

const fee = 10_000_000n
// Long enough that a charge sent at a period's start lands well inside the contract's window.
const period = 8
const receiver = anvilAccount(7)
const funder = anvilAccount(8)

const chainLayer = ViemSubscriptionChain.layerWith({ rpcTimeout: Duration.seconds(5) }).pipe(
  Layer.provideMerge(LocalChain.layer()),
  Layer.provideMerge(SignatureRecovery.layerInline)
)
const chainScope = Effect.runSync(Scope.make())
let chainContext: Context.Context<Layer.Success<typeof chainLayer>>
let chain: LocalChain.LocalChainInfo
let client: PublicClient

beforeAll(async () => {
  chainContext = await Effect.runPromise(Layer.buildWithScope(chainLayer, chainScope))
  chain = Context.get(chainContext, LocalChain.LocalChain)
  client = createPublicClient({ transport: http(chain.node.rpcUrl) }) as PublicClient
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(chainScope, Exit.void)))

const caip10 = (address: Address) => `${chain.chainId}:${address}`
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })

for (const db of databasesUnderTest) {
  describe(`Subscriptions charged through the vault on anvil, stored on ${db.name}`, () => {
    const scope = Effect.runSync(Scope.make())
    let services: Context.Context<SubscriptionCharges | SubscriptionRepository | PlanRepository | SubscriptionChain | AdapterServices>
    let plan: Plan

    beforeAll(async () => {
      services = await Effect.runPromise(Layer.buildWithScope(
        SubscriptionCharges.layer.pipe(
          Layer.provideMerge(Layer.mergeAll(SqlSubscriptionRepository.layer, SqlPlanRepository.layer)),
          Layer.provideMerge(adapterLayer(db)),
          Layer.provideMerge(Layer.succeedContext(chainContext)),
          // Periods of seconds: retries 2, 4 and 6 seconds into the period, looks every 200 ms.
          Layer.provide(Layer.succeed(ChargePolicy, { retryAfterSeconds: [2, 4, 6], followMillis: 200, backoffMillis: 500 }))
        ),
        scope
      ))
      plan = await run(Effect.gen(function*() {
        const merchant = yield* newMerchant(yield* newPartner())
        const stored = yield* newPlan(merchant, { unit: chain.usdcAssetId, value: fee, periodSeconds: period, periods: null })
        yield* (yield* PlanRepository).insert(stored)
        return stored
      }))
    }, 120_000)
    afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

    const run = <A, E>(effect: Effect.Effect<A, E, SubscriptionCharges | SubscriptionRepository | PlanRepository | SubscriptionChain | AdapterServices>) =>
      Effect.runPromise(Effect.provideContext(effect, services))

    /** The payer's subscription for `periods` periods of `period` seconds from the chain's now, signed and stored. */
    const subscribe = async (payer: TestAccount, periods: number) => {
      const terms = new SubscriptionTerms({
        payer: caip10(payer.address),
        receiver: caip10(receiver.address),
        asset: chain.usdcAssetId,
        amountPerPeriod: fee,
        periodSeconds: period,
        // The wall's now: anvil stamps the blocks it mines with it (the latest block may be older).
        start: Math.floor(Date.now() / 1000),
        periods,
        salt: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`
      })
      const sigDeadline = Math.floor(Date.now() / 1000) + 600
      const typed = JSON.parse(await run(Effect.gen(function*() {
        return yield* (yield* SubscriptionChain).permitTypedData(terms, sigDeadline)
      })))
      const { EIP712Domain: _, ...types } = typed.types
      const wallet = createWalletClient({ account: privateKeyToAccount(payer.privateKey), transport: http(chain.node.rpcUrl) })
      const message = { ...typed.message, details: { ...typed.message.details, amount: BigInt(typed.message.details.amount) }, sigDeadline: BigInt(typed.message.sigDeadline) }
      const signature = await wallet.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message })
      const subscription = subscriptionFixture({
        id: `sub_${payer.address.slice(2, 12)}` as SubscriptionId,
        planId: plan.id,
        partnerId: plan.partnerId,
        merchantId: plan.merchantId,
        mode: plan.mode,
        terms,
        permit: new SignedPermit({ signature, sigDeadline }),
        nextCheckAt: Date.now(),
        createdAt: Date.now(),
        updatedAt: Date.now()
      })
      await run(Effect.gen(function*() {
        yield* (yield* SubscriptionRepository).insert(subscription)
      }))
      return subscription
    }

    /**
     * The worker: claims and advances due subscriptions until `done` holds (or 60 s pass), with `between`
     * run each round. Anvil mines only when sent a transaction; a block a second keeps its clock with the
     * wall's, as a live chain's is (the contract reads the latest block's time).
     */
    const work = async (id: SubscriptionId, done: (s: Subscription) => boolean, between: () => Promise<void> = async () => {}) => {
      const deadline = Date.now() + 60_000
      let mined = 0
      for (;;) {
        if (Date.now() - mined >= 1_000) {
          mined = Date.now()
          await client.request({ method: "evm_mine" as never, params: [] as never })
        }
        const subscription = await run(Effect.gen(function*() {
          const repo = yield* SubscriptionRepository
          const charges = yield* SubscriptionCharges
          for (const due of yield* repo.claim(10, 30_000)) {
            yield* charges.advance(due)
            yield* repo.release(due, 0)
          }
          return Option.getOrThrow(yield* repo.findById(id))
        }))
        if (done(subscription)) return subscription
        if (Date.now() > deadline) throw new Error(`subscription ${id} still ${subscription.status} after 60 s`)
        await between()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }

    const eventTypes = (id: SubscriptionId) =>
      run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly type: string }>`SELECT type FROM outbox_events
          WHERE payload::jsonb -> 'subscription' ->> 'id' = ${id} ORDER BY created_at, id`
        return rows.map((row) => row.type)
      }))
    const vaultCharged = (subscription: Subscription, index: number) => {
      const hash = subscriptionTermsHash(chain.node.chainId, chain.contracts.subscriptionVault, vaultTerms(subscription))
      return client.readContract({ address: chain.contracts.subscriptionVault, abi: SubscriptionVault.abi, functionName: "charged", args: [hash, BigInt(index)] })
    }
    const vaultTerms = (s: Subscription) => ({
      operator: chain.executorAddress,
      payer: s.terms.payer.split(":")[2] as Address,
      receiver: receiver.address,
      token: chain.contracts.usdc,
      amountPerPeriod: s.terms.amountPerPeriod,
      period: s.terms.periodSeconds,
      start: s.terms.start,
      periods: s.terms.periods ?? 0,
      salt: s.terms.salt as `0x${string}`
    })

    it("subscribes, charges each period, retries a payer short of funds until topped up, and ends completed", async () => {
      const payer = await newPermit2Payer(chain, funder, fee)
      const before = await balanceOf(receiver.address)
      const subscription = await subscribe(payer, 3)
      let toppedUp = false
      const ended = await work(subscription.id, (s) => s.status === "ended", async () => {
        const latest = await run(Effect.gen(function*() {
          return yield* (yield* SubscriptionRepository).findById(subscription.id)
        }))
        if (!toppedUp && Option.getOrThrow(latest).status === "past_due") {
          toppedUp = true
          await sendCall(chain.node.rpcUrl, funder, chain.contracts.usdc, encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [payer.address, 2n * fee] }))
        }
      })
      expect(toppedUp).toBe(true)
      expect([ended.endedReason, ended.closedOnChain]).toEqual(["completed", true])
      const charges = await run(Effect.gen(function*() {
        return yield* (yield* SubscriptionRepository).charges(subscription.id)
      }))
      expect(charges.map((c) => [c.periodIndex, c.status, c.txHash !== null])).toEqual([[0, "succeeded", true], [1, "succeeded", true], [2, "succeeded", true]])
      expect(charges[1]!.failedAttempts).toBeGreaterThan(0)
      for (const index of [0, 1, 2]) expect(await vaultCharged(ended, index)).toBe(fee)
      expect(await balanceOf(receiver.address)).toBe(before + 3n * fee)
      const types = await eventTypes(subscription.id)
      expect(types.filter((t) => t === "subscription.charged")).toHaveLength(3)
      expect(types[0]).toBe("subscription.activated")
      // The last charge and the end commit together, with the same time: their order is not told.
      expect(types.slice(-2).sort()).toEqual(["subscription.charged", "subscription.ended"])
      expect(types).toContain("subscription.charge_failed")
    })

    it("a payer who revokes the allowance in Permit2 has cancelled: nothing more is charged and the vault cancels it", async () => {
      const payer = await newPermit2Payer(chain, funder, 5n * fee)
      const subscription = await subscribe(payer, 5)
      await work(subscription.id, (s) => s.status === "active" && s.nextCheckAt > Date.now())
      const spender = subscriptionSpender(
        chain.contracts.subscriptionVault,
        subscriptionTermsHash(chain.node.chainId, chain.contracts.subscriptionVault, vaultTerms(subscription))
      )
      await sendCall(chain.node.rpcUrl, payer, permit2Address, encodeFunctionData({ abi: TestPermit2.abi, functionName: "approve", args: [chain.contracts.usdc, spender, 0n, 0] }))
      const cancelled = await work(subscription.id, (s) => s.status === "cancelled" && s.closedOnChain)
      expect(cancelled.cancelledBy).toBe("payer")
      const hash = subscriptionTermsHash(chain.node.chainId, chain.contracts.subscriptionVault, vaultTerms(subscription))
      expect(await client.readContract({ address: chain.contracts.subscriptionVault, abi: SubscriptionVault.abi, functionName: "subscriptionOf", args: [hash] }))
        .toEqual([true, true])
      expect(await balanceOf(payer.address)).toBe(4n * fee)
      expect((await eventTypes(subscription.id)).filter((t) => t === "subscription.cancelled")).toHaveLength(1)
    })
  })
}
