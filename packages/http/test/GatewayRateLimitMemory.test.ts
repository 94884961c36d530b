import { CredentialAdmin } from "@paygate/adapters"
import { Context, Effect, Layer } from "effect"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it, vi } from "vitest"
import { pglite, useTestServer } from "../../../test/support/TestServer.ts"
import { RateLimiter } from "../src/server/RateLimiter.ts"

// The gateway's rate limit under a flood of made-up client ids, on one database: what is measured
// is the API process, not the database.
describe("gateway rate limit memory", () => {
  const server = useTestServer(pglite)

  it("25,000 requests with distinct 8 KB client ids hold one bucket, are refused past the burst, and leave the heap flat", async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.sandbox, "Corner Coffee")
    const app = await server.run(Effect.gen(function*() {
      return yield* (yield* CredentialAdmin).createApp({ name: "Wallet", mode: "sandbox" })
    }))
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    const rateLimiter = Effect.runSync(
      Effect.scoped(Effect.map(Layer.build(RateLimiter.make({ perSecond: 0.001, burst: 10 })), Context.get(RateLimiter)))
    )
    const limited = server.handler({ rateLimiter })
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    const heap = () => {
      gc()
      return process.memoryUsage().heapUsed
    }
    // The access log lines would queue in the test runner's console channel, not in the service.
    const quiet = [vi.spyOn(console, "log").mockImplementation(() => {}), vi.spyOn(console, "info").mockImplementation(() => {})]
    const wide = "c".repeat(8 * 1024)
    const statuses = new Map<number, number>()
    let before = 0
    let most = 0
    try {
      for (let i = 0; i < 25_000; i++) {
        if (i === 1_000) before = heap()
        const { status } = await limited("GET", `/v1/gateway/payment/${paymentId}`, {
          headers: { "app-id": app.appId, "client-id": `${wide}${i}` }
        })
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if (i % 1_000 === 0) most = Math.max(most, Effect.runSync(rateLimiter.size))
      }
    } finally {
      for (const spy of quiet) spy.mockRestore()
    }
    const grown = heap() - before
    expect(Object.fromEntries(statuses)).toEqual({ 200: 10, 429: 24_990 })
    expect(Math.max(most, Effect.runSync(rateLimiter.size))).toBe(1)
    // Kept per client id, 24,000 ids of 8 KB would be about 200 MB.
    expect(grown).toBeLessThan(16 * 1024 * 1024)
  }, 600_000)
})
