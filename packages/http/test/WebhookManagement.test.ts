/**
 * What the dashboard needs of the webhooks API beyond registration: changing an endpoint's event
 * types and status, rotating its secret, and a payment's own events and deliveries. The receiver
 * listens on 127.0.0.1, so the server allows private addresses.
 */
import { DeliveryQueue, type PartnerId, type PaymentId, WebhookEndpointRepository, type WebhookEndpointId } from "@paygate/domain"
import { Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"
import { forEachDatabase, type TestPartner, type TestResponse, useTestServer } from "../../../test/support/TestServer.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

let pathCounter = 0

forEachDatabase("Webhook endpoint management", (database) => {
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

  const register = async (body: Record<string, unknown> = {}) => {
    const path = `/manage-${pathCounter++}`
    const response = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url(path), ...body } })
    expect(response.status, response.text).toBe(201)
    receiver.expect(path, response.body.secret)
    return { id: response.body.id as string, path, secret: response.body.secret as string }
  }

  /** Fans the payment's events out to `endpointId`, as the worker would: pending deliveries due now. */
  const fanOut = (paymentId: string, endpointId: string) =>
    server.run(Effect.gen(function*() {
      const queue = yield* DeliveryQueue
      const events = yield* queue.listEvents({ partnerId: partner.partnerId as PartnerId, mode: "sandbox", paymentId: paymentId as PaymentId, after: null, limit: 100 })
      return yield* queue.fanOut(events.map((listed) => ({ event: listed.event, endpoints: [endpointId as WebhookEndpointId] })))
    }) as Effect.Effect<number, never, never>)

  const storedSecret = (id: string) =>
    server.run(Effect.gen(function*() {
      const found = yield* (yield* WebhookEndpointRepository).find(partner.partnerId as PartnerId, "sandbox", id as WebhookEndpointId)
      return Redacted.value(Option.getOrThrow(found).secret)
    }) as Effect.Effect<string, never, never>)

  const expectError = (response: TestResponse, status: number, code: string) => expect([response.status, response.body?.code], response.text).toEqual([status, code])

  describe("PATCH /v1/webhooks/{id}", () => {
    it("changes the event types (validated as at registration) and leaves what is not given", async () => {
      const endpoint = await register({ events: ["payment.succeeded"] })
      const patch = (body: unknown, apiKey = partner.sandbox) => server.request("PATCH", `/v1/webhooks/${endpoint.id}`, { apiKey, body })
      const changed = await patch({ events: ["payment.failed", "payment.created"] })
      expect(changed.status).toBe(200)
      expect(changed.body).toMatchObject({ id: endpoint.id, events: ["payment.created", "payment.failed"], status: "active" })
      expect(changed.body.secret).toBeUndefined()
      expect((await patch({})).body.events).toEqual(["payment.created", "payment.failed"])
      expect((await patch({ events: null })).body.events.length).toBeGreaterThanOrEqual(7)
      expectError(await patch({ events: ["payment.nonsense"] }), 400, "invalid_params")
      expectError(await patch({ status: "paused" }), 400, "invalid_params")
      expectError(await patch({ events: "payment.created" }), 400, "invalid_params")
      const listed = await server.request("GET", "/v1/webhooks", { apiKey: partner.sandbox })
      expect(listed.body.data.find((e: any) => e.id === endpoint.id).events.length).toBeGreaterThanOrEqual(7)
    })

    it("disables an endpoint (its pending deliveries end failed, each redeliverable) and enables it again", async () => {
      const endpoint = await register()
      const merchantId = await server.merchant(partner.sandbox)
      const payment = await server.payment(partner.sandbox, merchantId)
      expect(await fanOut(payment.paymentId, endpoint.id)).toBe(1)
      const disabled = await server.request("PATCH", `/v1/webhooks/${endpoint.id}`, { apiKey: partner.sandbox, body: { status: "disabled" } })
      expect(disabled.body.status).toBe("disabled")
      const deliveries = await server.request("GET", `/v1/webhooks/${endpoint.id}/deliveries`, { apiKey: partner.sandbox })
      expect(deliveries.body.data).toEqual([expect.objectContaining({ status: "failed", lastError: "the endpoint was disabled", nextAttemptAt: null })])
      const enabled = await server.request("PATCH", `/v1/webhooks/${endpoint.id}`, { apiKey: partner.sandbox, body: { status: "active" } })
      expect(enabled.body.status).toBe("active")
      const redelivered = await server.request("POST", `/v1/events/${deliveries.body.data[0].eventId}/redeliver?endpointId=${endpoint.id}`, { apiKey: partner.sandbox })
      expect(redelivered.status).toBe(202)
      expect(redelivered.body.deliveries).toHaveLength(1)
    })

    it("is 404 partner_not_found for another partner's, another mode's, unknown or malformed ids", async () => {
      const endpoint = await register()
      for (const [id, apiKey] of [[endpoint.id, other.sandbox], [endpoint.id, partner.live], ["whe_unknown", partner.sandbox], ["nonsense", partner.sandbox]] as const) {
        expectError(await server.request("PATCH", `/v1/webhooks/${id}`, { apiKey, body: { status: "disabled" } }), 404, "partner_not_found")
        expectError(await server.request("POST", `/v1/webhooks/${id}/rotate-secret`, { apiKey }), 404, "partner_not_found")
      }
      expect((await server.request("GET", "/v1/webhooks", { apiKey: partner.sandbox })).body.data.find((e: any) => e.id === endpoint.id).status).toBe("active")
    })
  })

  describe("POST /v1/webhooks/{id}/rotate-secret", () => {
    it("answers a new secret once; deliveries are signed with it from then on, not with the old one", async () => {
      const endpoint = await register()
      const rotated = await server.request("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { apiKey: partner.sandbox, headers: { "idempotency-key": `rotate-${endpoint.id}` } })
      expect(rotated.status).toBe(200)
      expect(rotated.body).toMatchObject({ id: endpoint.id, status: "active", secret: expect.stringMatching(/^whsec_/) })
      expect(rotated.body.secret).not.toBe(endpoint.secret)
      expect(await storedSecret(endpoint.id)).toBe(rotated.body.secret)
      const replay = await server.request("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { apiKey: partner.sandbox, headers: { "idempotency-key": `rotate-${endpoint.id}` } })
      expect(replay.body.secret).toBe("(shown only in the first response)")
      expect(await storedSecret(endpoint.id)).toBe(rotated.body.secret)

      receiver.expect(endpoint.path, rotated.body.secret)
      const test = await server.request("POST", `/v1/webhooks/${endpoint.id}/test`, { apiKey: partner.sandbox })
      expect(test.body.delivered, test.text).toBe(true)
      const received = receiver.on(endpoint.path).at(-1)!
      expect(received.verified).toBe(true)
      expect(() => new Webhook(endpoint.secret).verify(received.body, received.headers as Record<string, string>)).toThrow()
    })
  })

  describe("POST /v1/webhooks/{id}/test with an Idempotency-Key", () => {
    it("holds no database transaction while the receiver answers: other requests go on, the answer replays after", async () => {
      const endpoint = await register()
      receiver.behave(endpoint.path, () => ({ status: 200, delayMs: 2_000 }))
      const key = { "idempotency-key": `test-${endpoint.id}` }
      let testResponded = false
      const sending = server.request("POST", `/v1/webhooks/${endpoint.id}/test`, { apiKey: partner.sandbox, headers: key })
        .finally(() => (testResponded = true))
      await receiver.waitFor(() => receiver.on(endpoint.path).length === 1, 5_000, "the test event")
      // Meanwhile a write of another request commits (PGlite serves one transaction at a time).
      const merchant = await server.request("POST", "/v1/merchants", {
        apiKey: partner.sandbox,
        headers: { "idempotency-key": `merchant-${endpoint.id}` },
        body: { merchantName: `While testing ${endpoint.id}` }
      })
      expect(merchant.status).toBe(201)
      // Answered while the receiver still held the test event (a transaction around it would have made it wait).
      expect(testResponded).toBe(false)
      const sent = await sending
      expect(sent.body.delivered, sent.text).toBe(true)
      const replay = await server.request("POST", `/v1/webhooks/${endpoint.id}/test`, { apiKey: partner.sandbox, headers: key })
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(receiver.on(endpoint.path)).toHaveLength(1)
    })
  })

  describe("a payment's timeline and deliveries", () => {
    it("GET /v1/events?paymentId= lists only that payment's events; GET /v1/events/{eventId} answers one", async () => {
      const merchantId = await server.merchant(partner.sandbox)
      const first = await server.payment(partner.sandbox, merchantId)
      const second = await server.payment(partner.sandbox, merchantId)
      await server.request("POST", `/v1/payments/${first.paymentId}/cancel`, { apiKey: partner.sandbox })
      const events = await server.request("GET", `/v1/events?paymentId=${first.paymentId}`, { apiKey: partner.sandbox })
      expect(events.status).toBe(200)
      expect(events.body.data.map((e: any) => e.type)).toEqual(["payment.cancelled", "payment.created"])
      expect(events.body.data.every((e: any) => e.data.payment.paymentId === first.paymentId)).toBe(true)
      expect((await server.request("GET", `/v1/events?paymentId=${second.paymentId}`, { apiKey: partner.sandbox })).body.data.map((e: any) => e.type)).toEqual(["payment.created"])
      const paged = await server.request("GET", `/v1/events?paymentId=${first.paymentId}&limit=1`, { apiKey: partner.sandbox })
      const rest = await server.request("GET", `/v1/events?paymentId=${first.paymentId}&limit=1&cursor=${paged.body.nextCursor}`, { apiKey: partner.sandbox })
      expect([...paged.body.data, ...rest.body.data]).toEqual(events.body.data)
      for (const [paymentId, apiKey] of [[first.paymentId, other.sandbox], [first.paymentId, partner.live], ["pay_unknown", partner.sandbox], ["nonsense", partner.sandbox]] as const) {
        expect((await server.request("GET", `/v1/events?paymentId=${paymentId}`, { apiKey })).body).toEqual({ data: [], nextCursor: null })
      }

      const one = await server.request("GET", `/v1/events/${events.body.data[0].id}`, { apiKey: partner.sandbox })
      expect(one.status).toBe(200)
      expect(one.body).toEqual(events.body.data[0])
      for (const [id, apiKey] of [[events.body.data[0].id, other.sandbox], [events.body.data[0].id, partner.live], ["evt_unknown", partner.sandbox], ["nonsense", partner.sandbox]] as const) {
        expectError(await server.request("GET", `/v1/events/${id}`, { apiKey }), 404, "payment_not_found")
      }
    })

    it("GET /v1/payments/{id}/deliveries lists the deliveries of its events to every endpoint; another partner's payment is 404", async () => {
      const a = await register()
      const b = await register()
      const merchantId = await server.merchant(partner.sandbox)
      const payment = await server.payment(partner.sandbox, merchantId)
      const unrelated = await server.payment(partner.sandbox, merchantId)
      await fanOut(payment.paymentId, a.id)
      await fanOut(payment.paymentId, b.id)
      await fanOut(unrelated.paymentId, a.id)
      const deliveries = await server.request("GET", `/v1/payments/${payment.paymentId}/deliveries`, { apiKey: partner.sandbox })
      expect(deliveries.status).toBe(200)
      expect(deliveries.body.data.map((d: any) => d.endpointId).sort()).toEqual([a.id, b.id].sort())
      expect(deliveries.body.data.every((d: any) => d.eventType === "payment.created" && d.status === "pending")).toBe(true)
      const page = await server.request("GET", `/v1/payments/${payment.paymentId}/deliveries?limit=1`, { apiKey: partner.sandbox })
      const next = await server.request("GET", `/v1/payments/${payment.paymentId}/deliveries?limit=1&cursor=${page.body.nextCursor}`, { apiKey: partner.sandbox })
      expect([...page.body.data, ...next.body.data]).toEqual(deliveries.body.data)
      expect(next.body.nextCursor).toBeNull()
      for (const [id, apiKey] of [[payment.paymentId, other.sandbox], [payment.paymentId, partner.live], ["pay_unknown", partner.sandbox], ["nonsense", partner.sandbox]] as const) {
        expectError(await server.request("GET", `/v1/payments/${id}/deliveries`, { apiKey }), 404, "payment_not_found")
      }
    })

    it("takes the dashboard's cookie: reads freely, changes with the Csrf-Token only", async () => {
      const endpoint = await register()
      const signIn = await server.request("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } })
      const cookie = `paygate_session=${/paygate_session=([^;]*)/.exec(signIn.headers.get("set-cookie")!)![1]}`
      expect((await server.request("GET", "/v1/events", { headers: { cookie } })).status).toBe(200)
      expectError(await server.request("PATCH", `/v1/webhooks/${endpoint.id}`, { headers: { cookie }, body: { status: "disabled" } }), 403, "forbidden")
      expectError(await server.request("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { headers: { cookie } }), 403, "forbidden")
      const patched = await server.request("PATCH", `/v1/webhooks/${endpoint.id}`, { headers: { cookie, "csrf-token": signIn.body.csrfToken }, body: { status: "disabled" } })
      expect(patched.body.status).toBe("disabled")
    })
  })
})
