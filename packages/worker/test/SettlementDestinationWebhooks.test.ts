/**
 * `settlement_destination.changed` end to end: destinations added, changed and removed over the
 * partner API, each committing one outbox event with the change, delivered by the worker's jobs
 * (signed, verified by the `standardwebhooks` library) to the partner's endpoints of the
 * merchant's mode that subscribe to it, and to no one else; listed, read and redelivered like
 * payment events. On PGlite, and on PostgreSQL when `TEST_DATABASE_URL` is set.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"
import { startWorker } from "./support/TestWorker.ts"
import { decodeSettlementDestinationEnvelope } from "../../../test/support/WireShapes.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"


// USDC on Ethereum: a chain the test server does not serve, so merchants of either mode may name it.
const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const dai = "eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0F"
const first = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const second = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const type = "settlement_destination.changed"

let pathCounter = 0

forEachDatabase("Settlement destination webhooks", (database) => {
  const server = useTestServer(database)
  let receiver: Receiver
  let partner: TestPartner
  let other: TestPartner

  beforeAll(async () => {
    receiver = await startReceiver()
    partner = await server.partner()
    other = await server.partner()
  })
  afterAll(async () => {
    await receiver?.close()
  })

  const register = async (apiKey: string, body: Record<string, unknown> = {}) => {
    const path = `/destinations-${pathCounter++}`
    const response = await server.request("POST", "/v1/webhooks", { apiKey, body: { url: receiver.url(path), ...body } })
    expect(response.status, response.text).toBe(201)
    receiver.expect(path, response.body.secret)
    return { id: response.body.id as string, path }
  }

  // The outbox rows of a merchant's destinations.
  const eventRows = (merchantId: string) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly id: string; readonly payment_id: string | null }>`SELECT id, payment_id FROM outbox_events
        WHERE type = ${type} AND payload->'settlement'->>'merchantId' = ${merchantId} ORDER BY created_at, id`
    }))

  it("each destination added, changed or removed commits one event, delivered signed to the subscribed endpoints of its mode only", async () => {
    const subscribed = await register(partner.sandbox, { events: [type] })
    const everything = await register(partner.sandbox)
    const paymentsOnly = await register(partner.sandbox, { events: ["payment.created"] })
    const live = await register(partner.live)
    const stranger = await register(other.sandbox)
    const merchantId = await server.merchant(partner.sandbox)
    const otherMerchant = await server.merchant(partner.sandbox)
    const scoped = await register(partner.sandbox, { merchantId: otherMerchant })
    const worker = await startWorker(server.run)
    try {
      const call = (method: string, path: string, body?: unknown, apiKey = partner.sandbox) =>
        server.request(method, `/v1/merchants/${merchantId}/settlements/crypto${path}`, { apiKey, body })
      const added = await call("POST", "", { settlements: [{ asset: usdc, destination: first }] })
      expect(added.status, added.text).toBe(201)
      const id = added.body.crypto[0].id as string
      expect((await eventRows(merchantId)).length).toBe(1)

      // Refused requests and no-ops commit nothing.
      expect((await call("POST", "", { settlements: [{ asset: usdc, destination: second }] })).status).toBe(409)
      expect((await call("POST", "", { settlements: [{ asset: dai, destination: "eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" }] })).status).toBe(400)
      expect((await call("PUT", `/${id}`, { destination: "eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" })).status).toBe(400)
      expect((await call("PUT", `/${id}`, { destination: second }, other.sandbox)).status).toBe(404)
      expect((await call("PUT", `/${id}`, { destination: second }, partner.live)).status).toBe(404)
      const same = await call("PUT", `/${id}`, { destination: first.toLowerCase() })
      expect(same.status, same.text).toBe(200)
      expect((await call("DELETE", "/stl_unknown")).status).toBe(404)
      expect((await eventRows(merchantId)).length).toBe(1)

      const changed = await call("PUT", `/${id}`, { destination: second })
      expect(changed.status, changed.text).toBe(200)
      expect((await call("DELETE", `/${id}`)).status).toBe(200)
      expect((await call("DELETE", `/${id}`)).status).toBe(404)
      const rows = await eventRows(merchantId)
      expect(rows.map((r) => r.payment_id)).toEqual([null, null, null])

      await receiver.waitFor(() => receiver.on(subscribed.path).length >= 3 && receiver.on(everything.path).length >= 3, 15_000, "three events")
      const got = receiver.on(subscribed.path)
      expect(got.every((r) => r.verified)).toBe(true)
      const envelopes = got.map((r) => decodeSettlementDestinationEnvelope(r.envelope)).sort((a, b) => rows.findIndex((r) => r.id === a.id) - rows.findIndex((r) => r.id === b.id))
      expect(envelopes.map((e) => e.id)).toEqual(rows.map((r) => r.id))
      expect(got.map((r) => r.webhookId).sort()).toEqual(rows.map((r) => r.id).sort())
      expect(envelopes.map((e) => [e.type, e.data.change, e.data.settlementDestination.destination, e.data.previousDestination])).toEqual([
        [type, "added", first, null],
        [type, "changed", second, first],
        [type, "removed", second, null]
      ])
      for (const e of envelopes) {
        expect(e.apiVersion).toBe("2026-02-18")
        expect(e.data.settlementDestination).toMatchObject({ id, merchantId, asset: usdc, network: "eip155:1" })
      }
      // A sandbox destination is usable at once; the change's time is its record's.
      expect(envelopes[1]!.data.settlementDestination.usableFrom).toBe(changed.body.usableFrom)
      expect(envelopes[0]!.data.settlementDestination.usableFrom).toBe(added.body.crypto[0].usableFrom)

      // Nothing for endpoints of payment events only, of the live mode, of another merchant or partner.
      await new Promise((resolve) => setTimeout(resolve, 500))
      for (const endpoint of [paymentsOnly, live, stranger, scoped]) expect(receiver.on(endpoint.path)).toEqual([])
      expect(receiver.on(everything.path)).toHaveLength(3)

      // Listed, read and redelivered like payment events, in their mode only.
      const listed = await server.request("GET", "/v1/events?limit=100", { apiKey: partner.sandbox })
      expect(listed.status, listed.text).toBe(200)
      expect(listed.body.data.filter((e: any) => e.type === type).map((e: any) => e.id)).toEqual(rows.map((r) => r.id).reverse())
      const liveList = await server.request("GET", "/v1/events?limit=100", { apiKey: partner.live })
      expect(liveList.body.data.some((e: any) => e.type === type)).toBe(false)
      const one = await server.request("GET", `/v1/events/${rows[1]!.id}`, { apiKey: partner.sandbox })
      expect(one.status, one.text).toBe(200)
      expect(one.body).toEqual(envelopes[1])
      expect((await server.request("GET", `/v1/events/${rows[1]!.id}`, { apiKey: partner.live })).status).toBe(404)
      expect((await server.request("GET", `/v1/events/${rows[1]!.id}`, { apiKey: other.sandbox })).status).toBe(404)
      const deliveries = await server.request("GET", `/v1/webhooks/${subscribed.id}/deliveries`, { apiKey: partner.sandbox })
      expect(deliveries.body.data.map((d: any) => [d.eventType, d.status])).toEqual(Array(3).fill([type, "succeeded"]))
      const redelivered = await server.request("POST", `/v1/events/${rows[2]!.id}/redeliver`, { apiKey: partner.sandbox })
      expect(redelivered.status, redelivered.text).toBe(202)
      expect(redelivered.body.deliveries.map((d: any) => d.endpointId).sort()).toEqual([subscribed.id, everything.id].sort())
      await receiver.waitFor(() => receiver.on(subscribed.path).length >= 4, 10_000, "the redelivery")
      expect(receiver.on(subscribed.path)[3]!.envelope).toEqual(envelopes[2])
    } finally {
      await worker.stop()
    }
  })

  it("a live destination's event goes to live endpoints only, and says when it becomes usable (a day later)", async () => {
    const live = await register(partner.live, { events: [type] })
    const sandbox = await register(partner.sandbox, { events: [type] })
    const merchantId = await server.merchant(partner.live)
    const worker = await startWorker(server.run)
    try {
      const added = await server.request("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
        apiKey: partner.live,
        body: { settlements: [{ asset: usdc, destination: first }] }
      })
      expect(added.status, added.text).toBe(201)
      await receiver.waitFor(() => receiver.on(live.path).length >= 1, 15_000, "the live event")
      const envelope = decodeSettlementDestinationEnvelope(receiver.on(live.path)[0]!.envelope)
      expect(envelope.data.settlementDestination.usableFrom - envelope.data.settlementDestination.createdAt).toBe(86_400)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(receiver.on(sandbox.path)).toEqual([])
    } finally {
      await worker.stop()
    }
  })
})
