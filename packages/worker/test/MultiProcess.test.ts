/**
 * The worker as separate processes against one PostgreSQL (only with `TEST_DATABASE_URL`):
 * three instances drain 10,000 events to 3 endpoints, each (event, endpoint) delivered exactly
 * once (receivers always respond 200, so nothing is sent twice); a worker killed with SIGKILL
 * mid-drain loses nothing once another starts; SIGTERM finishes or releases claimed work.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterEach, describe, expect, it } from "vitest"
import { dbState, expectedPairs, pairCounter, tally } from "./support/Drain.ts"
import { makePostgresWorld, type PostgresWorld, type SeededEndpoint } from "../../../test/support/PostgresWorld.ts"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"

const serverUrl = process.env.TEST_DATABASE_URL

describe.runIf(serverUrl !== undefined && serverUrl !== "")("Worker processes on PostgreSQL", () => {
  let world: PostgresWorld | undefined
  let receiver: Receiver | undefined

  afterEach(async () => {
    await world?.close()
    await receiver?.close()
    world = undefined
    receiver = undefined
  })

  const setUp = async (events: number) => {
    world = await makePostgresWorld(serverUrl!)
    receiver = await startReceiver()
    const merchant = await world.merchant()
    const endpoints: Array<SeededEndpoint> = []
    for (const path of ["/a", "/b", "/c"]) endpoints.push(await world.endpoint(merchant, receiver.url(path), path))
    for (const e of endpoints) receiver.expect(e.path, e.secret)
    const eventIds = await world.seed(merchant, events)
    return { world, receiver, endpoints, eventIds }
  }

  it("three workers drain 10,000 events to 3 endpoints: every (event, endpoint) exactly once", async () => {
    const { endpoints, eventIds, receiver, world } = await setUp(10_000)
    const started = Date.now()
    const workers = [0, 1, 2].map(() =>
      world.spawnWorker({ WORKER_POLL_MS: "50", WORKER_CONCURRENCY: "96", WORKER_PER_ENDPOINT_CONCURRENCY: "16" })
    )
    // Throughput is measured by `npm run bench`; here the bound only says the workers do finish.
    await receiver.waitFor(() => receiver.received.length >= 30_000, 200_000, "30,000 deliveries").catch((error) => {
      throw new Error(`${error.message} (got ${receiver.received.length}); worker output:\n${workers.map((w) => w.output().slice(-2_000)).join("\n---\n")}`)
    })
    const drainedMs = Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 500)) // anything sent twice would show up now
    const { duplicates, pairs, unverified } = tally(receiver, endpoints)
    expect(unverified).toBe(0)
    expect(pairs.length).toBe(30_000)
    expect(duplicates).toEqual([])
    const expected = expectedPairs(endpoints, eventIds)
    expect(pairs.every(([key]) => expected.has(key))).toBe(true)
    const state = await dbState(world)
    expect(state).toMatchObject({ deliveries: 30_000, succeeded: 30_000, once: 30_000, unprocessedEvents: 0 })
    for (const w of workers) w.child.kill("SIGTERM")
    const codes = await Promise.all(workers.map((w) => w.exited))
    console.log(`drained 10,000 events × 3 endpoints with 3 worker processes in ${drainedMs} ms; exits ${codes.join(", ")}`)
  }, 300_000)

  it("a worker killed with SIGKILL mid-drain loses nothing: a restarted worker finishes", async () => {
    const { endpoints, eventIds, receiver, world } = await setUp(2_000)
    // Slow enough answers that the first worker is still far from done when it is killed (at most about 640
    // deliveries a second, 4,500 left), however long the checks before the kill take on a loaded machine.
    for (const e of endpoints) receiver.behave(e.path, () => ({ status: 200, delayMs: 50 }))
    const env = { WORKER_POLL_MS: "50", WORKER_CONCURRENCY: "32", WORKER_DELIVERY_LEASE_MS: "2000", WORKER_OUTBOX_LEASE_MS: "2000" }
    const first = world.spawnWorker(env)
    await receiver.waitFor(() => receiver.received.length >= 1_500, 60_000, "the first 1,500 deliveries").catch((error) => {
      throw new Error(`${error.message} (got ${receiver.received.length}); worker output:\n${first.output().slice(-3_000)}`)
    })
    // Kill it mid-flight: while it holds leased deliveries.
    for (let i = 0; i < 200 && (await dbState(world)).leasedDeliveries === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    first.child.kill("SIGKILL")
    expect(await first.exited).toBe("SIGKILL")
    const atKill = receiver.received.length
    const deliveredAtKill = new Set(receiver.received.map((r) => `${r.path} ${r.webhookId}`))
    const orphans = await world.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly event_id: string; readonly endpoint_id: string }>`
        SELECT event_id, endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NOT NULL`
    }).pipe(Effect.orDie))
    const pathOf = new Map(endpoints.map((e) => [e.id, e.path]))
    const orphansReceived = orphans.filter((o) => deliveredAtKill.has(`${pathOf.get(o.endpoint_id)} ${o.event_id}`)).length
    expect(orphans.length).toBeGreaterThan(0)
    const second = world.spawnWorker(env)
    const received = pairCounter(receiver, endpoints)
    await receiver.waitFor(() => received() >= 6_000, 60_000, "every pair").catch((error) => {
      throw new Error(`${error.message} (got ${received()}); output:\n${second.output().slice(-3_000)}`)
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const { duplicates, pairs, unverified } = tally(receiver, endpoints)
    expect(unverified).toBe(0)
    expect(pairs.length).toBe(6_000)
    const expected = expectedPairs(endpoints, eventIds)
    expect(pairs.every(([key]) => expected.has(key))).toBe(true)
    // Only what the killed worker had in flight may arrive twice (at-least-once after a failure).
    expect(duplicates.every(([key]) => deliveredAtKill.has(key))).toBe(true)
    expect(duplicates.length).toBeLessThanOrEqual(32)
    const state = await dbState(world)
    expect(state).toMatchObject({ deliveries: 6_000, succeeded: 6_000, unprocessedEvents: 0, leasedDeliveries: 0 })
    second.child.kill("SIGTERM")
    await second.exited
    console.log(
      `killed at ${atKill} received, ${orphans.length} leased (${orphansReceived} of them already received); ` +
        `${duplicates.length} sent twice; all 6,000 delivered`
    )
  }, 180_000)

  it("SIGTERM finishes or releases claimed work", async () => {
    const { endpoints, receiver, world } = await setUp(2_000)
    for (const e of endpoints) receiver.behave(e.path, () => ({ status: 200, delayMs: 20 }))
    const worker = world.spawnWorker({ WORKER_POLL_MS: "50", WORKER_CONCURRENCY: "32" })
    await receiver.waitFor(() => receiver.received.length >= 300, 60_000, "300 deliveries")
    worker.child.kill("SIGTERM")
    const code = await worker.exited
    expect(code).not.toBe("SIGKILL")
    const state = await dbState(world)
    // Nothing is left leased: attempts in flight were recorded (or released), no event is half dispatched.
    expect(state.leasedDeliveries).toBe(0)
    expect(state.leasedEvents).toBe(0)
    const received = tally(receiver, endpoints).pairs.length
    expect(state.succeeded).toBe(received)
    expect(worker.output()).toContain("worker started")
  }, 120_000)
})
