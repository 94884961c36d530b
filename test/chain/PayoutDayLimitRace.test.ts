/**
 * The per-day payout limit holds when two workers sign payouts of one token at the same time, on a
 * real anvil chain: two settlements that each fit the day alone, but not together, are advanced at
 * once by two workers (each its own payout ports and chain sender, as in a process of its own), both
 * past their first look at the limits before either records its transfer. Exactly one is signed
 * and paid; the other is not signed and waits for an owner's approval, saying why.
 *
 * On PostgreSQL, the check and the record are one step across connections: while one payout's
 * record is under way (its transaction open), another payout of the token waits, then counts it.
 */
import { Chain, GatewayServices, SqlPayoutLimits, WorkerPorts } from "@paygate/adapters"
import { type PaymentId, Payout, type PayoutKey, PayoutExecutions, PayoutLimits, PayoutRepository, Payouts, SettlementDecisions, SignedTransfer } from "@paygate/domain"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, postgres, type TestDatabase, type TestPartner, type TestServer, useTestServer } from "../support/TestServer.ts"

const { ChainConfig } = Chain

const world = localChainForFile()
const tusdc = (units: number) => BigInt(Math.round(units * 1_000_000))

/** The local chain's configuration with a day's limit of 3 on its test token. */
const limited = () => {
  const settings = world().settings()
  return { ...settings, chains: settings.chains.map((chain) => ({ ...chain, limits: { TUSDC: { perDay: "3" } } })) }
}

/**
 * Advances `key` as a worker process would, with payout ports of its own; its transfer is signed
 * only once `arrive` has let it through (every worker past its first look at the limits).
 */
const advanceAsWorker = (key: PayoutKey, arrive: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const chain = yield* Payouts
    const gated = Layer.succeed(Payouts, Payouts.of({ ...chain, send: (transfer, record) => Effect.andThen(arrive, chain.send(transfer, record)) }))
    return yield* PayoutExecutions.use((executions) => executions.advance(key)).pipe(
      Effect.provide(PayoutExecutions.layer.pipe(Layer.provide(gated)))
    )
  }).pipe(Effect.provide(WorkerPorts.payoutPorts))

/** A test server on `database` whose merchant settles the test token to a fresh address; `paid` succeeds and decides settlements of it. */
const settlingServer = (database: TestDatabase) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(limited())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let merchantId: string
  const destination = privateKeyToAccount(generatePrivateKey()).address

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Settling Shop")
    const registered = await server.request("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
      apiKey: partner.sandbox,
      body: { settlements: [{ asset: world().chain.usdcAssetId, destination: `${world().chain.chainId}:${destination}` }] }
    })
    expect(registered.status, registered.text).toBe(201)
  }, 120_000)

  /** Settlements (decided, not signed) of `count` new payments of 2 TUSDC each. */
  const settlements = async (count: number) => {
    const paymentIds: Array<PaymentId> = []
    for (let i = 0; i < count; i++) {
      const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as PaymentId
      await server.succeed(paymentId, { asset: world().chain.usdcAssetId, tokenAmount: tusdc(2) })
      paymentIds.push(paymentId)
    }
    await server.run(Effect.provide(SettlementDecisions.use((decisions) => decisions.decideNext(100)), SettlementDecisions.layer))
    return paymentIds
  }

  return { server, destination, settlements }
}

const settlementOf = (server: TestServer, paymentId: PaymentId) =>
  server.run(PayoutRepository.use((repo) => repo.find({ paymentId, kind: "settlement" }))).then(Option.getOrThrow)

const settlementPayout = (paymentId: PaymentId) =>
  Effect.map(PayoutRepository.use((repo) => repo.find({ paymentId, kind: "settlement" })), Option.getOrThrow)

const overTheDay = "settlement of 2.00 TUSDC — today's (UTC) payouts would reach 4.00 TUSDC, over the 3.00 TUSDC per-day limit"

forEachDatabase("Per-day payout limit with two workers (anvil)", (database) => {
  const { destination, server, settlements } = settlingServer(database)

  it("two settlements of 2 against a day's limit of 3, signed at once by two workers: one is paid, the other waits for approval", async () => {
    const paymentIds = await settlements(2)
    const steps = await server.run(Effect.gen(function*() {
      // Each worker waits here until both have looked at the limits (each payout fits the day alone).
      const bothArrived = yield* Deferred.make<void>()
      let arrived = 0
      const arrive = Effect.suspend(() => ++arrived === 2 ? Deferred.succeed(bothArrived, undefined) : Effect.void).pipe(
        Effect.andThen(Deferred.await(bothArrived))
      )
      return yield* Effect.all(paymentIds.map((paymentId) => advanceAsWorker({ paymentId, kind: "settlement" }, arrive)), { concurrency: 2 })
    }))

    const payouts = await Promise.all(paymentIds.map((paymentId) => settlementOf(server, paymentId)))
    const signed = payouts.filter((p) => p.transfer !== null)
    const waiting = payouts.filter((p) => p.transfer === null)
    expect(signed.length, "exactly one transfer signed and recorded").toBe(1)
    expect(waiting.map((p) => [p.status, p.approvalRequired])).toEqual([["pending", overTheDay]])
    expect([...steps].sort()).toEqual(["final", "pending"])
    // On chain: the one transfer, nothing more.
    await eventually(() => world().balanceOf(destination), (balance) => balance === tusdc(2))
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await world().balanceOf(destination)).toBe(tusdc(2))
    // The worker's next step records the mined transfer: the payout completes and the ledger moves its 2 out.
    const paid = signed[0]!.paymentId
    await eventually(async () => {
      await server.run(advanceAsWorker({ paymentId: paid, kind: "settlement" }, Effect.void))
      return (await settlementOf(server, paid)).status
    }, (status) => status === "completed")
  })
})

describe("Per-day payout limit across connections (PostgreSQL)", () => {
  const { server, settlements } = settlingServer(postgres(process.env.TEST_DATABASE_URL!))

  it("while one payout's record is under way, another payout of the token waits for it, then counts it: over the day, nothing recorded", async () => {
    const [first, second] = await settlements(2)
    const recording = (repo: PayoutRepository["Service"], payout: Payout, n: number) =>
      repo.update(new Payout({
        ...payout,
        transfer: new SignedTransfer({ txHash: `0x${n.toString(16).padStart(64, "0")}`, raw: `0x02f8${n}` }),
        version: payout.version + 1
      }))
    const lockWaiters = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
    ).pipe(Effect.map((rows) => rows[0]!.n))

    const [firstAnswer, secondAnswer] = await server.run(Effect.gen(function*() {
      const limits = yield* PayoutLimits
      const repo = yield* PayoutRepository
      const [one, two] = [yield* settlementPayout(first!), yield* settlementPayout(second!)]
      const recorded = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The first payout's record stays open (its transaction uncommitted) until released.
      const firstRecord = Effect.tap(recording(repo, one, 1), () => Effect.andThen(Deferred.succeed(recorded, undefined), Deferred.await(release)))
      const firstFiber = yield* Effect.forkChild(limits.admit(one, firstRecord))
      yield* Deferred.await(recorded)
      const secondFiber = yield* Effect.forkChild(limits.admit(two, recording(repo, two, 2)))
      // The second waits for the first's lock (or, were it not taken, is already done).
      for (let i = 0; i < 100 && (yield* lockWaiters) === 0 && secondFiber.pollUnsafe() === undefined; i++) yield* Effect.sleep("50 millis")
      yield* Deferred.succeed(release, undefined)
      return [yield* Fiber.join(firstFiber), yield* Fiber.join(secondFiber)] as const
    }).pipe(Effect.provide(SqlPayoutLimits.layer)))

    expect(firstAnswer).toBe(true)
    expect(secondAnswer).toBe(overTheDay)
    expect((await settlementOf(server, second!)).transfer).toBeNull()
  })
})
