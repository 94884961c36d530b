/**
 * Idempotency keys across process and database faults, with real processes:
 *
 * - A: an API process on PostgreSQL is killed with SIGKILL in the middle of a burst of merchant
 *   creates (a unique `Idempotency-Key` each, 16 in flight) and started again;
 * - B: the PostgreSQL server is stopped for 5 s in the middle of such a burst (a server of the
 *   test's own: `ThrowawayPostgres`), the API process staying up.
 *
 * Then, once the idempotency lease (`IDEMPOTENCY_LEASE_MS`, 3 s here) has passed, every request is
 * retried with its key and its exact body, twice. What a client must see (API rules §5): every key
 * responds 200 with one paymentId on every response, the retries after a completed answer replayed
 * (`Idempotent-Replayed: true`), no `idempotency_conflict` after the lease (a "stuck" key), no 500
 * once the database is back; and the database holds exactly one payment per key (by referenceId).
 *
 * Sizes: `FAULT_KEYS` keys (default 3,000 for A, 2,000 for B).
 */
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import { afterEach, describe, expect, it } from "vitest"
import { makePostgresWorld, type PostgresWorld } from "./support/PostgresWorld.ts"
import { startThrowawayPostgres, type ThrowawayPostgres } from "./support/ThrowawayPostgres.ts"
import { type Answer, forEachLimited, isConnectionFailure, send } from "./support/Http.ts"
import { stopFor } from "./support/PostgresOutage.ts"
import { admin, freePort, type Managed, managedApi, sleep } from "./support/ServiceProcess.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const leaseMs = 3_000
const inFlight = 16
const route = "POST /v1/merchant/payment"
const keysFor = (fallback: number) => Number(process.env.FAULT_KEYS ?? fallback)

/** One key's request and every outcome it had. */
interface KeyRun {
  readonly key: string
  readonly referenceId: string
  readonly body: { readonly amount: { readonly unit: string; readonly value: string }; readonly referenceId: string }
  readonly outcomes: Array<Outcome>
}

type Phase = "burst" | "early" | "retry" | "replay"

type Outcome =
  | { readonly phase: Phase; readonly at: number; readonly status: number; readonly code?: string; readonly paymentId?: string; readonly replayed: boolean }
  | { readonly phase: Phase; readonly at: number; readonly failure: string }

const answered = (o: Outcome): o is Extract<Outcome, { status: number }> => "status" in o

interface Cluster {
  readonly world: PostgresWorld
  readonly api: Managed & { readonly url: string }
  readonly headers: Record<string, string>
  readonly merchantId: string
}

/** A fresh database on `server` with one API process, a sandbox partner (operator CLI) and a merchant (partner API). */
const setUp = async (server: string): Promise<Cluster> => {
  const world = await makePostgresWorld(server)
  const port = await freePort()
  const api = managedApi("api", port, {
    DATABASE_URL: world.url,
    WEBHOOK_SECRET_KEY: world.keyText,
    OPTION_ID_SECRET: randomBytes(32).toString("base64"),
    PAYGATE_CHAINS: JSON.stringify({ chains: [], assets: [] }),
    WORKER_IN_PROCESS: "false",
    IDEMPOTENCY_LEASE_MS: String(leaseMs),
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000"
  })
  await api.start()
  const partner = await admin(world.url, "partner", "create", "--name", "Burst partner", "--sandbox")
  const merchant = await send(api.url, "POST", "/v1/merchants", {
    headers: { "api-key": partner.apiKey, "idempotency-key": "merchant-1" },
    body: { merchantName: "Burst shop" }
  })
  if (merchant.status !== 201 && merchant.status !== 200) throw new Error(`merchant create answered ${merchant.status} ${merchant.text}`)
  const merchantId = merchant.body.merchantId as string
  return { world, api, merchantId, headers: { "api-key": partner.apiKey, "merchant-id": merchantId } }
}

const keyRuns = (count: number): Array<KeyRun> => {
  const run = randomBytes(3).toString("hex")
  return Array.from({ length: count }, (_, i) => {
    const referenceId = `burst-${run}-${i}`
    return {
      key: `key-${run}-${i}`,
      referenceId,
      body: { amount: { unit: "iso4217/USD", value: String(100 + i) }, referenceId },
      outcomes: []
    }
  })
}

/** One create with the key's exact body; the outcome is recorded. */
const attempt = async (cluster: Cluster, run: KeyRun, phase: Phase): Promise<Outcome> => {
  let outcome: Outcome
  try {
    const answer: Answer = await send(cluster.api.url, "POST", "/v1/merchant/payment", {
      headers: { ...cluster.headers, "idempotency-key": run.key },
      body: run.body
    })
    outcome = {
      phase,
      at: Date.now(),
      status: answer.status,
      ...(answer.body?.code === undefined ? {} : { code: answer.body.code as string }),
      ...(answer.body?.paymentId === undefined ? {} : { paymentId: answer.body.paymentId as string }),
      replayed: answer.headers["idempotent-replayed"] === "true"
    }
  } catch (error) {
    if (!isConnectionFailure(error)) throw error
    outcome = { phase, at: Date.now(), failure: error.code }
  }
  run.outcomes.push(outcome)
  return outcome
}

/**
 * The burst: every key once, 16 in flight; `fault` starts once `faultAfter` keys were answered.
 * A lane whose connection was refused (the process is down) waits until the fault is over (the
 * process restarted) before going on; after a 5xx it pauses 200 ms.
 */
const burst = async (cluster: Cluster, runs: ReadonlyArray<KeyRun>, faultAfter: number, fault: () => Promise<void>) => {
  let done = 0
  let faultRun: Promise<void> | undefined
  await forEachLimited(runs, inFlight, async (run) => {
    const outcome = await attempt(cluster, run, "burst")
    if (!answered(outcome) && outcome.failure === "ECONNREFUSED") {
      for (let i = 0; i < 600 && (await faultRunning(faultRun)); i++) await sleep(50)
    }
    // A client backs off a little after a server error (the database is down).
    if (answered(outcome) && outcome.status >= 500) await sleep(200)
    done++
    if (done === faultAfter) faultRun = fault()
  })
  await faultRun
}

const faultRunning = async (fault: Promise<void> | undefined) => {
  if (fault === undefined) return false
  const settled = await Promise.race([fault.then(() => true, () => true), sleep(0).then(() => false)])
  return !settled
}

/** Every key again with its exact body, 16 in flight. */
const retryAll = (cluster: Cluster, runs: ReadonlyArray<KeyRun>, phase: Phase) =>
  forEachLimited(runs, inFlight, async (run) => void (await attempt(cluster, run, phase)))

interface Figures {
  readonly keys: number
  readonly requests: number
  readonly retries: number
  /** Keys whose burst request got no response, or a 5xx. */
  readonly failedInBurst: number
  /** 409 idempotency_conflict after the lease. */
  readonly stuck: number
  /** Keys with more than one payment. */
  readonly duplicates: number
  /** Keys with no payment at the end. */
  readonly lost: number
  /** Keys whose responses named different payments. */
  readonly idChanges: number
  readonly status500: number
  readonly status500AfterFault: number
  /** 409 in flight while the lease still held the key (expected). */
  readonly conflictsWithinLease: number
  readonly notReplayed: number
  readonly otherResponses: ReadonlyArray<string>
  readonly paymentsInDb: number
  /** Keys of the route still unanswered (in flight) in the database at the end. */
  readonly openKeys: number
}

/**
 * Holds `LOCK TABLE payments IN SHARE MODE` on one of `sql`'s connections: inserts into payments
 * wait (reads do not) until the answered function is called.
 */
const lockPayments = async (sql: postgres.Sql): Promise<() => Promise<void>> => {
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  let unlock!: () => void
  const unlocked = new Promise<void>((resolve) => (unlock = resolve))
  const holder = sql.begin(async (tx) => {
    await tx`LOCK TABLE payments IN SHARE MODE`
    locked()
    await unlocked
  })
  await lockTaken
  return async () => {
    unlock()
    await holder
  }
}

/** Keys of the route claimed and not answered (in flight) in the database now. */
const openKeys = async (cluster: Cluster): Promise<number> => {
  const sql = postgres(cluster.world.url, { max: 1, onnotice: () => {} })
  try {
    const [open] = await sql<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM idempotency_keys WHERE route = ${route} AND status_code IS NULL`
    return open!.n
  } finally {
    await sql.end()
  }
}

/** What the responses and the database say. */
const figures = async (cluster: Cluster, runs: ReadonlyArray<KeyRun>, faultEndedAt: number): Promise<Figures> => {
  const sql = postgres(cluster.world.url, { max: 1, onnotice: () => {} })
  try {
    const rows = await sql<Array<{ reference_id: string; ids: Array<string> }>>`
      SELECT reference_id, array_agg(id ORDER BY id) AS ids FROM payments WHERE merchant_id = ${cluster.merchantId} GROUP BY reference_id`
    const byReference = new Map(rows.map((r) => [r.reference_id, r.ids]))
    const all = runs.flatMap((r) => r.outcomes)
    const later = (o: Outcome) => o.phase === "retry" || o.phase === "replay"
    const other = new Set<string>()
    for (const o of all) {
      if (answered(o) && o.status !== 200 && o.status !== 201 && !(o.status === 409 && o.code === "idempotency_conflict") && o.status !== 500) {
        other.add(`${o.phase} ${o.status} ${o.code ?? ""}`)
      }
    }
    return {
      keys: runs.length,
      requests: all.length,
      retries: all.filter((o) => o.phase !== "burst").length,
      failedInBurst: runs.filter((r) => {
        const first = r.outcomes.find((o) => o.phase === "burst")!
        return !answered(first) || first.status >= 500
      }).length,
      stuck: runs.filter((r) => r.outcomes.some((o) => later(o) && answered(o) && o.code === "idempotency_conflict")).length,
      duplicates: runs.filter((r) => (byReference.get(r.referenceId)?.length ?? 0) > 1).length,
      lost: runs.filter((r) => (byReference.get(r.referenceId)?.length ?? 0) === 0).length,
      idChanges: runs.filter((r) => {
        const ids = new Set(r.outcomes.flatMap((o) => (answered(o) && o.paymentId !== undefined ? [o.paymentId] : [])))
        const stored = byReference.get(r.referenceId) ?? []
        return ids.size > 1 || [...ids].some((id) => !stored.includes(id))
      }).length,
      status500: all.filter((o) => answered(o) && o.status >= 500).length,
      status500AfterFault: all.filter((o) => answered(o) && o.status >= 500 && o.at > faultEndedAt + 1_000).length,
      conflictsWithinLease: all.filter((o) => o.phase === "early" && answered(o) && o.code === "idempotency_conflict").length,
      notReplayed: runs.filter((r) => r.outcomes.some((o) => o.phase === "replay" && (!answered(o) || !o.replayed))).length,
      otherResponses: [...other],
      paymentsInDb: rows.reduce((n, r) => n + r.ids.length, 0),
      openKeys: await openKeys(cluster)
    }
  } finally {
    await sql.end()
  }
}

const summary = (name: string, f: Figures, extra: string) =>
  `${name}: ${f.keys} keys, ${f.requests} requests, ${extra}, ${f.failedInBurst} failed in the burst, ${f.retries} retries, ` +
  `${f.conflictsWithinLease} conflicts within the lease, stuck keys ${f.stuck}, duplicates ${f.duplicates}, lost ${f.lost}, ` +
  `id changes ${f.idChanges}, 500s ${f.status500} (${f.status500AfterFault} after the fault), payments ${f.paymentsInDb}, ` +
  `keys left in flight ${f.openKeys}`

/** The assertions both tests make, once the figures are printed. */
const expectConverged = (f: Figures, runs: ReadonlyArray<KeyRun>, outputs: string) => {
  expect(f.stuck, `keys answering idempotency_conflict after the lease\n${outputs}`).toBe(0)
  expect(f.duplicates).toBe(0)
  expect(f.lost).toBe(0)
  expect(f.idChanges).toBe(0)
  expect(f.paymentsInDb).toBe(runs.length)
  expect(f.openKeys).toBe(0)
  expect(f.otherResponses).toEqual([])
  // After the lease every key answers with its payment; the second pass replays every one.
  for (const r of runs) {
    const retry = r.outcomes.find((o) => o.phase === "retry")!
    const replay = r.outcomes.find((o) => o.phase === "replay")!
    expect(answered(retry) && retry.status, `${r.key}: ${JSON.stringify(r.outcomes)}`).toBe(200)
    expect(answered(replay) && replay.status === 200 && replay.replayed, `${r.key}: ${JSON.stringify(r.outcomes)}`).toBe(true)
    // A key answered before the fault replays that response.
    const first = r.outcomes[0]!
    if (answered(first) && first.status === 200) expect(answered(retry) && retry.replayed, `${r.key}: ${JSON.stringify(r.outcomes)}`).toBe(true)
  }
  expect(f.notReplayed).toBe(0)
}

describe.runIf(serverUrl !== undefined && serverUrl !== "")("Idempotency keys across a kill -9 of the API process (PostgreSQL)", () => {
  let cluster: Cluster | undefined

  afterEach(async () => {
    try {
      await cluster?.api.stop(2_000)
    } finally {
      await cluster?.world.close()
      cluster = undefined
    }
  })

  it("kill -9 mid-burst of creates, restart, retry every key after the lease: one payment and one answer per key", async () => {
    cluster = await setUp(serverUrl!)
    const c = cluster
    const runs = keyRuns(keysFor(3_000))
    let killedAt = 0
    let restartedAt = 0
    let inFlightAtKill = 0
    let heldAtKill = 0
    const started = Date.now()
    await burst(c, runs, Math.floor(runs.length * 0.35), async () => {
      // The kill lands while requests are mid-way for certain: payment inserts wait for a moment
      // (their keys claimed), then the process dies and its sessions with it, as PostgreSQL ends
      // the sessions of a client that is gone.
      const blocker = postgres(c.world.url, { max: 2, onnotice: () => {} })
      try {
        const unlock = await lockPayments(blocker)
        await sleep(300)
        inFlightAtKill = runs.filter((r) => r.outcomes.length === 0).length
        await c.api.kill9()
        killedAt = Date.now()
        await blocker`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`
        // Keys the killed process had claimed and never answered: what a 24 h hold would have stuck.
        heldAtKill = await openKeys(c)
        await unlock()
      } finally {
        await blocker.end()
      }
      await c.api.start()
      restartedAt = Date.now()
      // Within the lease: the keys claimed by the killed process are still held (in flight).
      const failed = runs.filter((r) => r.outcomes.length > 0 && !answered(r.outcomes[0]!) && r.outcomes[0]!.failure !== "ECONNREFUSED")
      if (Date.now() < killedAt + leaseMs - 500) await forEachLimited(failed, inFlight, async (r) => void (await attempt(c, r, "early")))
    })
    const burstMs = Date.now() - started
    // Past the lease of every key claimed before the kill.
    await sleep(Math.max(0, killedAt + leaseMs + 500 - Date.now()))
    await retryAll(c, runs, "retry")
    await retryAll(c, runs, "replay")
    const f = await figures(c, runs, restartedAt)
    const cutAtKill = runs.filter((r) => !answered(r.outcomes[0]!) && r.outcomes[0]!.failure !== "ECONNREFUSED").length
    console.log(summary(
      "kill -9 of the API mid-burst",
      f,
      `1 kill (${cutAtKill} requests cut, ${inFlightAtKill} not yet answered, ${heldAtKill} keys held by the killed process; ` +
        `restart took ${restartedAt - killedAt} ms; burst ${burstMs} ms)`
    ))
    expect(cutAtKill).toBeGreaterThan(0)
    // The kill did leave keys claimed and unanswered, and none of them is stuck after the lease.
    expect(heldAtKill).toBeGreaterThan(0)
    expect(f.status500).toBe(0)
    expectConverged(f, runs, c.api.outputs())
  }, 180_000)
})

describe.runIf(serverUrl !== undefined && serverUrl !== "")("Idempotency keys: a create that outlives its lease (PostgreSQL)", () => {
  let cluster: Cluster | undefined

  afterEach(async () => {
    try {
      await cluster?.api.stop(2_000)
    } finally {
      await cluster?.world.close()
      cluster = undefined
    }
  })

  it("a create stalled past the lease is fenced: the retry takes the key over, one payment, the stalled request writes nothing", async () => {
    cluster = await setUp(serverUrl!)
    const c = cluster
    const [run] = keyRuns(1)
    const sql = postgres(c.world.url, { max: 2, onnotice: () => {} })
    try {
      const unlock = await lockPayments(sql)
      const stalled = attempt(c, run!, "burst")
      await sleep(leaseMs + 700)
      // The key is past its lease: the retry takes it over (its own insert waits for the lock too).
      const retry = attempt(c, run!, "retry")
      await sleep(500)
      await unlock()
      const [first, second] = await Promise.all([stalled, retry])
      const replay = await attempt(c, run!, "replay")
      const rows = await sql<Array<{ id: string }>>`SELECT id FROM payments WHERE reference_id = ${run!.referenceId}`
      const [key] = await sql<Array<{ status_code: number | null; response_body: string | null }>>`
        SELECT status_code, response_body FROM idempotency_keys WHERE key = ${run!.key}`
      console.log(`stalled past the lease: ${JSON.stringify(run!.outcomes)}; payments ${rows.length}`)
      expect(answered(first!) && first.status === 409 && first.code).toBe("idempotency_conflict")
      expect(answered(second!) && second.status).toBe(200)
      expect(rows.map((r) => r.id)).toEqual([answered(second!) ? second.paymentId : "?"])
      expect(answered(replay) && replay.status === 200 && replay.replayed && replay.paymentId).toBe(rows[0]!.id)
      expect(key!.status_code).toBe(200)
      expect(JSON.parse(key!.response_body!).paymentId).toBe(rows[0]!.id)
    } finally {
      await sql.end()
    }
  }, 60_000)
})

describe("Idempotency keys across a PostgreSQL outage (a server of the test's own)", () => {
  let pg: ThrowawayPostgres | undefined
  let cluster: Cluster | undefined

  afterEach(async () => {
    try {
      await cluster?.api.stop(2_000)
      await cluster?.world.close()
    } finally {
      await pg?.stop()
      cluster = undefined
      pg = undefined
    }
  })

  it("PostgreSQL stopped 5 s mid-burst of creates, failed requests retried after the lease: one payment and one answer per key", async () => {
    pg = await startThrowawayPostgres()
    cluster = await setUp(pg.url)
    const c = cluster
    const server = pg
    const runs = keyRuns(keysFor(2_000))
    let outage = { stoppedAt: 0, startedAt: 0 }
    const started = Date.now()
    await burst(c, runs, Math.floor(runs.length * 0.3), async () => {
      outage = await stopFor(server.url, 5_000)
    })
    const burstMs = Date.now() - started
    // The API reconnects by itself: wait until it answers creates again, then past the lease.
    await sleep(Math.max(0, outage.startedAt + leaseMs + 500 - Date.now()))
    await retryAll(c, runs, "retry")
    await retryAll(c, runs, "replay")
    const f = await figures(c, runs, outage.startedAt)
    const duringOutage = runs.filter((r) => {
      const first = r.outcomes[0]!
      return first.at >= outage.stoppedAt - 1_000 && first.at <= outage.startedAt + 1_000
    }).length
    console.log(summary(
      "PostgreSQL stopped 5 s mid-burst",
      f,
      `1 outage of ${outage.startedAt - outage.stoppedAt} ms (${duringOutage} keys first sent around it; burst ${burstMs} ms)`
    ))
    expect(f.failedInBurst).toBeGreaterThan(0)
    expect(f.status500AfterFault).toBe(0)
    // The process stayed up and reconnected.
    expect(c.api.instances.length).toBe(1)
    expectConverged(f, runs, c.api.outputs())
  }, 180_000)
})
