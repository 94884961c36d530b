/**
 * Webhook delivery outcomes on `GET /metrics`: the deliverer counts every attempt as `delivered`
 * (2xx), `failed` (to be retried) or `abandoned` (no retry left), in the process's registry. So
 * the service's `/metrics` shows them when the worker runs inside it (on PGlite, and on PostgreSQL
 * when `TEST_DATABASE_URL` is set), and a worker in its own process shows them on its listener,
 * `WORKER_METRICS_PORT` (PostgreSQL only: worker processes need a server).
 */
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { forEachDatabase } from "../../../test/support/TestServer.ts"
import { makePostgresWorld, type PostgresWorld } from "../../../test/support/PostgresWorld.ts"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"
import { serverWithReceiver } from "./support/ServerWithReceiver.ts"
import { freePort } from "../../../test/support/FreePort.ts"
import { startWorker } from "./support/TestWorker.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

type Counts = Record<"delivered" | "failed" | "abandoned", number>

/** `paygate_webhook_deliveries_total` by outcome, from a Prometheus text exposition. */
const deliveryCounts = (text: string): Counts => {
  const counts: Counts = { delivered: Number.NaN, failed: Number.NaN, abandoned: Number.NaN }
  for (const line of text.split("\n")) {
    const match = /^paygate_webhook_deliveries_total\{outcome="(\w+)"\} (\S+)$/.exec(line)
    if (match !== null && match[1]! in counts) counts[match[1] as keyof Counts] = Number(match[2])
  }
  return counts
}

const delta = (after: Counts, before: Counts): Counts => ({
  delivered: after.delivered - before.delivered,
  failed: after.failed - before.failed,
  abandoned: after.abandoned - before.abandoned
})

/** Scrapes until the counters moved by `expected` (the count follows the attempt by a moment). */
const settle = async (scrape: () => Promise<Counts>, before: Counts, expected: Counts) => {
  let moved = delta(await scrape(), before)
  for (let i = 0; i < 100 && JSON.stringify(moved) !== JSON.stringify(expected); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    moved = delta(await scrape(), before)
  }
  return moved
}

forEachDatabase("Webhook delivery metrics (worker in the service's process)", (database) => {
  const world = serverWithReceiver(database)

  const scrape = async () => {
    const response = await world.server.request("GET", "/metrics")
    expect(response.status).toBe(200)
    return deliveryCounts(response.text)
  }

  it("counts a delivered, a failed and an abandoned attempt", async () => {
    const { merchantId, partner, receiver, server } = world
    const register = async (path: string) => {
      const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url(path) } })
      expect(created.status, created.text).toBe(201)
      receiver.expect(path, created.body.secret)
    }
    await register("/ok")
    await register("/down")
    receiver.behave("/down", () => ({ status: 500 }))
    const before = await scrape()
    expect(Object.values(before).every(Number.isFinite), "every outcome is exported").toBe(true)
    // One retry: the first 500 is `failed`, the second (the last attempt) `abandoned`.
    const worker = await startWorker(server.run, { retrySchedule: { delays: [100], jitter: 0 } })
    try {
      await server.payment(partner.sandbox, merchantId)
      await receiver.waitFor(() => receiver.on("/ok").length >= 1 && receiver.on("/down").length >= 2, 10_000, "3 attempts")
      expect(await settle(scrape, before, { delivered: 1, failed: 1, abandoned: 1 })).toEqual({ delivered: 1, failed: 1, abandoned: 1 })
    } finally {
      await worker.stop()
    }
  })
})

const serverUrl = process.env.TEST_DATABASE_URL


describe.runIf(serverUrl !== undefined && serverUrl !== "")("Webhook delivery metrics (worker in its own process)", () => {
  let world: PostgresWorld | undefined
  let receiver: Receiver | undefined

  afterAll(async () => {
    await world?.close()
    await receiver?.close()
  })

  it("answers GET /metrics on WORKER_METRICS_PORT with the outcomes of its attempts", async () => {
    world = await makePostgresWorld(serverUrl!)
    receiver = await startReceiver()
    const merchant = await world.merchant()
    for (const path of ["/ok", "/down"]) {
      const endpoint = await world.endpoint(merchant, receiver.url(path), path)
      receiver.expect(path, endpoint.secret)
    }
    receiver.behave("/down", () => ({ status: 503 }))
    await world.seed(merchant, 3)
    const port = await freePort()
    const worker = world.spawnWorker({ WORKER_METRICS_PORT: String(port), WORKER_POLL_MS: "50", WEBHOOK_RETRY_SCHEDULE_MS: "60000" })
    const url = `http://127.0.0.1:${port}`
    const scrape = async () => deliveryCounts(await (await fetch(`${url}/metrics`)).text())
    for (let i = 0; await fetch(`${url}/metrics`).then(() => false, () => true); i++) {
      if (i > 300) throw new Error(`no listener on ${port}:\n${worker.output()}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // A fresh process: it starts from 0.
    const zero = { delivered: 0, failed: 0, abandoned: 0 }
    expect(await settle(scrape, zero, { delivered: 3, failed: 3, abandoned: 0 })).toEqual({ delivered: 3, failed: 3, abandoned: 0 })
    const response = await fetch(`${url}/metrics`)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const text = await response.text()
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m)
    expect(text).toContain("# TYPE paygate_webhook_deliveries_total counter")
    expect((await fetch(`${url}/other`)).status).toBe(404)
    worker.child.kill("SIGTERM")
    expect(typeof (await worker.exited)).toBe("number")
  }, 120_000)
})
