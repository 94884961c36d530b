/**
 * A POST's change and its idempotent answer commit together: a request that outlived
 * its lease, while a retry took its key over, changes nothing, so the retry's change is the only
 * one. Made certain with a table lock on a PostgreSQL database (PGlite runs one session at a time,
 * where a held lock would stop the requests before their claims): both requests claim the key,
 * then wait for the lock at their insert.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { beforeAll, describe, expect, it } from "vitest"
import { postgres, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"

// Read when the server's services are built: a key held for 300 ms only, and a fixed at-rest key.
process.env.IDEMPOTENCY_LEASE_MS = "300"
process.env.WEBHOOK_SECRET_KEY = Buffer.alloc(32, 9).toString("base64")

const serverUrl = process.env.TEST_DATABASE_URL

describe.runIf(serverUrl !== undefined && serverUrl !== "")("a POST's change commits with its answer, or not at all (PostgreSQL)", () => {
  const server = useTestServer(postgres(serverUrl!))
  let partner: TestPartner
  beforeAll(async () => {
    partner = await server.partner()
  })

  /** Holds `LOCK TABLE table IN SHARE MODE` (inserts wait) until `release` is called. */
  const lockTable = async (table: string) => {
    let taken!: () => void
    const lockTaken = new Promise<void>((resolve) => (taken = resolve))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const held = server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe(`LOCK TABLE ${table} IN SHARE MODE`)
        taken()
        yield* Effect.promise(() => released)
      }))
    }))
    await lockTaken
    return async () => {
      release()
      await held
    }
  }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  /** Resolves once `count` sessions of the database wait for a lock (the held table's inserts). */
  const lockWaiters = async (count: number) => {
    for (let tries = 0; tries < 200; tries++) {
      const waiting = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return (yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`)[0]!.n
      }))
      if (waiting >= count) return
      await sleep(50)
    }
    throw new Error(`${count} requests never waited at the held insert`)
  }
  /**
   * Sends `send` twice with the inserts into `table` held: the first request claims its key and
   * waits at its insert past its lease, the second takes the key over and waits too; then both go.
   * Answers the first (late) request's response and the second's.
   */
  const overlapPastLease = async <A>(table: string, send: () => Promise<A>) => {
    const unlock = await lockTable(table)
    const first = send()
    await lockWaiters(1)
    await sleep(400) // past the first request's 300 ms lease
    const retry = send()
    await lockWaiters(2)
    await unlock()
    return Promise.all([first, retry])
  }

  it("a request that outlived its lease changes nothing: one webhook endpoint for one key, answered to the retry", async () => {
    const url = `https://hooks.example.invalid/${Date.now()}`
    const register = () =>
      server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, headers: { "idempotency-key": `hook-${url}` }, body: { url } })
    const [late, taken] = await overlapPastLease("webhook_endpoints", register)

    expect(late.status).toBe(409)
    expect(late.body).toEqual({
      code: "idempotency_conflict",
      message: "This request outlived its hold on its idempotency key and a retry took the key over; this request changed nothing."
    })
    expect(taken.status).toBe(201)
    const endpoints = (await server.request("GET", "/v1/webhooks", { apiKey: partner.sandbox })).body.data.filter((e: any) => e.url === url)
    expect(endpoints.map((e: any) => e.id)).toEqual([taken.body.id])
    // The retry's response is the key's: replayed from now on.
    const replay = await register()
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.id).toBe(taken.body.id)
  })

  it("a refund and its answer: a request that outlived its lease leaves no refund behind, the retry's is the one", async () => {
    const merchantId = await server.merchant(partner.sandbox)
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const refund = () =>
      server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, headers: { "idempotency-key": `refund-${payment.paymentId}` }, body: { paymentId: payment.paymentId } })
    const [late, taken] = await overlapPastLease("refunds", refund)
    expect(late.body.code).toBe("idempotency_conflict")
    expect(taken.status).toBe(201)
    const record = (await server.request("GET", `/v1/payments/${payment.paymentId}`, { apiKey: partner.sandbox })).body
    expect(record.refund.refundId).toBe(taken.body.refundId)
    const count = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM refunds WHERE payment_id = ${payment.paymentId}`)[0]!.n
    }))
    expect(count).toBe(1)
  })
})
