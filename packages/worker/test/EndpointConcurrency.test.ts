/**
 * The per-endpoint bound of the deliverer: a slow endpoint never has more than
 * `perEndpointConcurrency` requests of one worker awaiting their response, even though the worker
 * claims again each time one of them ends (a claim counts the attempts already in flight). On
 * PGlite, and on PostgreSQL when `TEST_DATABASE_URL` is set.
 */
import { randomBytes } from "node:crypto"
import { expect, it } from "vitest"
import { forEachDatabase } from "../../../test/support/TestServer.ts"
import { serverWithReceiver } from "./support/ServerWithReceiver.ts"
import { startWorker } from "./support/TestWorker.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

forEachDatabase("Per-endpoint concurrency", (database) => {
  const world = serverWithReceiver(database)

  it("never has more than perEndpointConcurrency requests in flight to one endpoint", async () => {
    const { merchantId, partner, receiver, server } = world
    const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url("/slow") } })
    expect(created.status, created.text).toBe(201)
    receiver.expect("/slow", created.body.secret)
    // Answers at different times, so that slots free up one by one.
    receiver.behave("/slow", (n) => ({ status: 200, delayMs: 60 + (n % 4) * 40 }))
    for (let i = 0; i < 12; i++) await server.payment(partner.sandbox, merchantId)
    const worker = await startWorker(server.run, {}, { perEndpointConcurrency: 3, concurrency: 64 })
    try {
      await receiver.waitFor(() => receiver.on("/slow").length >= 12, 15_000, "12 deliveries")
    } finally {
      await worker.stop()
    }
    expect(receiver.on("/slow").every((r) => r.verified)).toBe(true)
    expect(receiver.maxInFlight("/slow")).toBe(3)
  })
})
