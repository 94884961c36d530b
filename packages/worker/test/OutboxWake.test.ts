/**
 * The dispatcher waits for the outbox instead of polling it often: with a poll of a minute, a new
 * event still goes out at once. Events of this process wake it when their transaction commits; on
 * PostgreSQL, events anyone commits wake it through `LISTEN` (also after its listening connection
 * was killed); on PGlite, an event written around the service waits for the next poll.
 */
import { IdGenerator } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { type RunningWorker, startWorker } from "./support/TestWorker.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

/** Far beyond every wait below: an event that arrives came through a wake, not a poll. */
const minutePoll = { pollIntervalMs: 60_000 }
/** How soon a woken worker delivers, on a busy machine. */
const promptly = 5_000

forEachDatabase("Outbox wake", (database) => {
  const server = useTestServer(database)
  const onPostgres = database.name !== "PGlite"
  let receiver: Receiver
  let partner: TestPartner
  let merchantId: string
  let path: string
  let worker: RunningWorker | undefined

  beforeAll(async () => {
    receiver = await startReceiver()
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
    path = "/wake"
    const endpoint = await server.request("POST", "/v1/webhooks", {
      apiKey: partner.sandbox,
      body: { url: receiver.url(path), events: ["payment.created"] }
    })
    expect(endpoint.status, endpoint.text).toBe(201)
    receiver.expect(path, endpoint.body.secret)
  })
  afterAll(async () => {
    await worker?.stop()
    await receiver?.close()
  })

  /** Waits until the receiver got the `payment.created` of `paymentId`; answers how long after `since` it came. */
  const arrival = async (paymentId: string, since: number, withinMs: number) => {
    const found = await eventually(
      async () => receiver.on(path).find((r) => r.verified && r.envelope?.data?.payment?.paymentId === paymentId),
      (r) => r !== undefined,
      withinMs
    )
    return found!.at - since
  }

  /** A copy of `paymentId`'s `payment.created` under a new event id, inserted with plain SQL (no service code around it). */
  const insertAround = (paymentId: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const id = yield* (yield* IdGenerator).make("event")
      yield* sql`INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
        SELECT ${id}, type, partner_id, payment_id, jsonb_set(payload, '{id}', to_jsonb(${id}::text)), created_at
        FROM outbox_events WHERE payment_id = ${paymentId} AND type = 'payment.created' LIMIT 1`
      return id
    }))

  it("with a poll of a minute, a payment created through the API is delivered at once: its commit wakes the dispatcher", async () => {
    worker = await startWorker(server.run, {}, minutePoll)
    // Idle first: the worker's first claims found nothing and it waits.
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (let i = 0; i < 3; i++) {
      const since = Date.now()
      const payment = await server.payment(partner.sandbox, merchantId)
      const took = await arrival(payment.paymentId, since, promptly)
      expect(took).toBeLessThan(promptly)
    }
  })

  it.runIf(onPostgres)("an event committed outside the service's code wakes it through LISTEN, also once its listening connection was killed", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await arrival(payment.paymentId, Date.now(), promptly)
    const deliveredBefore = receiver.on(path).length
    await insertAround(payment.paymentId)
    await eventually(async () => receiver.on(path).length, (n) => n > deliveredBefore, promptly)

    const killed = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly pid: number }>`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%'`
    }))
    expect(killed).toHaveLength(1)
    await insertAround(payment.paymentId)
    await eventually(async () => receiver.on(path).length, (n) => n > deliveredBefore + 1, promptly)
  })

  it.runIf(!onPostgres)("on PGlite, an event written around the service is found at the next poll", async () => {
    await worker?.stop()
    worker = await startWorker(server.run, {}, { pollIntervalMs: 500 })
    const payment = await server.payment(partner.sandbox, merchantId)
    await arrival(payment.paymentId, Date.now(), promptly)
    const deliveredBefore = receiver.on(path).length
    await insertAround(payment.paymentId)
    await eventually(async () => receiver.on(path).length, (n) => n > deliveredBefore, promptly)
  })
})
