/**
 * Webhooks end to end: endpoints registered over the partner API, events written by the use
 * cases (outbox), the worker's jobs running in process, and a local receiver verifying every
 * request with the `standardwebhooks` library. On PGlite, and on PostgreSQL when
 * `TEST_DATABASE_URL` is set.
 *
 * The receiver listens on 127.0.0.1, so these servers allow private addresses explicitly
 * (`WEBHOOK_ALLOW_PRIVATE=true`), except the one that checks the refusals.
 */
import {
  Commitment,
  IdGenerator,
  IdempotencyStore,
  OutboxEvent,
  Payment,
  type PaymentEventType,
  type PaymentId,
  PaymentRepository,
  Payments,
  type WebhookEventType
} from "@paygate/domain"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { type Receiver, startReceiver } from "../../../test/support/Receiver.ts"
import { decodePaymentEnvelope } from "../../../test/support/WireShapes.ts"
import { startWorker } from "./support/TestWorker.ts"

// The environment is read once per test file, when the first server is built.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

const allTypes: ReadonlyArray<WebhookEventType> = [
  "payment.created",
  "payment.processing",
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.cancelled",
  "payment.settled",
  "payment.transfer_received",
  "payment.refunded",
  "payment.refund_failed",
  "payment.authorized",
  "payment.captured",
  "payment.capture_failed",
  "payment.voided",
  "payment.reclaimed",
  "subscription.activated",
  "subscription.charged",
  "subscription.charge_failed",
  "subscription.paused",
  "subscription.resumed",
  "subscription.cancelled",
  "subscription.ended",
  "settlement_destination.changed"
]

let pathCounter = 0
const newPath = () => `/hook-${pathCounter++}`

forEachDatabase("Webhooks", (database) => {
  const server = useTestServer(database)
  let receiver: Receiver
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    receiver = await startReceiver()
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })
  afterAll(async () => {
    await receiver?.close()
  })

  /** Registers an endpoint on the receiver at a new path; answers its id, path and secret. */
  const register = async (
    body: Record<string, unknown> = {},
    apiKey = partner.sandbox
  ): Promise<{ id: string; path: string; secret: string; response: any }> => {
    const path = newPath()
    const response = await server.request("POST", "/v1/webhooks", { apiKey, body: { url: receiver.url(path), ...body } })
    expect(response.status, response.text).toBe(201)
    receiver.expect(path, response.body.secret)
    return { id: response.body.id, path, secret: response.body.secret, response: response.body }
  }

  const deliveriesOf = async (endpointId: string, apiKey = partner.sandbox) => {
    const response = await server.request("GET", `/v1/webhooks/${endpointId}/deliveries?limit=100`, { apiKey })
    expect(response.status, response.text).toBe(200)
    return response.body.data as Array<any>
  }

  // A change with its outbox event, as a use case writes it (for the stages no HTTP route reaches yet).
  const emit = (id: string, type: PaymentEventType, patch: (p: Payment) => Partial<Payment>, stage: Record<string, unknown> = {}) =>
    server.run(Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const current = Option.getOrThrow(yield* repo.findById(id as PaymentId))
      const next = new Payment({ ...current, ...patch(current), stateVersion: current.stateVersion + 1, updatedAt: Date.now() })
      const event = new OutboxEvent({
        id: yield* (yield* IdGenerator).make("event"),
        type,
        partnerId: next.partnerId,
        paymentId: next.id,
        payment: next,
        stage,
        createdAt: Math.floor(next.updatedAt / 1000)
      })
      if (!(yield* repo.update(next, [event]))) throw new Error("changed meanwhile")
      return event
    }))

  const toProcessing = (id: string) =>
    emit(id, "payment.processing", (p) => ({
      status: "processing",
      commitment: new Commitment({
        kind: "pull",
        account: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        tokenAmount: p.value * 10_000n,
        fingerprint: `fp-${id}`,
        txHash: null,
        authorization: null,
        reference: null,
        walletName: "Test wallet",
        confirmedAt: Math.floor(Date.now() / 1000)
      })
    }), { kind: "pull" })

  describe("the partner API", () => {
    it("registers an endpoint, shows its secret once, lists and deletes it", async () => {
      const created = await register({ events: ["payment.succeeded", "payment.created", "payment.succeeded"] })
      expect(created.id).toMatch(/^whe_[0-9A-Z]{26}$/)
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(Buffer.from(created.secret.slice(6), "base64").length).toBe(32)
      expect(created.response).toMatchObject({ url: receiver.url(created.path), events: ["payment.created", "payment.succeeded"], merchantId: null, status: "active" })
      const all = await register()
      expect(all.response.events).toEqual(allTypes)
      const list = await server.request("GET", "/v1/webhooks", { apiKey: partner.sandbox })
      expect(list.status).toBe(200)
      const ids = list.body.data.map((e: any) => e.id)
      expect(ids.indexOf(all.id)).toBeLessThan(ids.indexOf(created.id))
      expect(list.body.data.every((e: any) => e.secret === undefined)).toBe(true)
      expect(JSON.stringify(list.body)).not.toContain(created.secret)
      const page = await server.request("GET", "/v1/webhooks?limit=1", { apiKey: partner.sandbox })
      expect(page.body.data).toHaveLength(1)
      expect(typeof page.body.nextCursor).toBe("string")
      // Another mode or partner sees nothing of it.
      const live = await server.request("GET", "/v1/webhooks", { apiKey: partner.live })
      expect(live.body.data.map((e: any) => e.id)).not.toContain(created.id)
      const other = await server.partner()
      expect((await server.request("DELETE", `/v1/webhooks/${created.id}`, { apiKey: other.sandbox })).status).toBe(404)
      const removed = await server.request("DELETE", `/v1/webhooks/${created.id}`, { apiKey: partner.sandbox })
      expect(removed.status).toBe(200)
      expect(removed.body).toEqual({ id: created.id, deleted: true })
      const again = await server.request("DELETE", `/v1/webhooks/${created.id}`, { apiKey: partner.sandbox })
      expect(again.status).toBe(404)
      expect(again.body.code).toBe("partner_not_found")
      await server.request("DELETE", `/v1/webhooks/${all.id}`, { apiKey: partner.sandbox })
    })

    it("answers contract errors for bad bodies, unknown merchants and unknown ids", async () => {
      const post = (body: unknown) => server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body })
      expect((await post({})).body.code).toBe("invalid_params")
      expect((await post({ url: 42 })).body.code).toBe("invalid_params")
      expect((await post({ url: "https://example.com/x", events: ["payment.unknown"] })).body.code).toBe("invalid_params")
      expect((await post({ url: "not a url" })).body.code).toBe("params_validation")
      expect((await post({ url: "ftp://example.com/x" })).body.code).toBe("params_validation")
      expect((await post({ url: "https://user:pw@example.com/x" })).body.code).toBe("params_validation")
      const unknownMerchant = await post({ url: "https://example.com/x", merchantId: "mer_nope" })
      expect(unknownMerchant.status).toBe(404)
      expect(unknownMerchant.body.code).toBe("merchant_not_found")
      const liveMerchant = await server.merchant(partner.live)
      expect((await post({ url: "https://example.com/x", merchantId: liveMerchant })).body.code).toBe("merchant_not_found")
      for (const path of ["/v1/webhooks/whe_nope/deliveries", "/v1/webhooks/nope/deliveries"]) {
        const response = await server.request("GET", path, { apiKey: partner.sandbox })
        expect(response.status).toBe(404)
        expect(response.body.code).toBe("partner_not_found")
      }
      const redeliver = await server.request("POST", "/v1/events/evt_nope/redeliver", { apiKey: partner.sandbox })
      expect(redeliver.status).toBe(404)
      expect(redeliver.body.code).toBe("payment_not_found")
      expect((await server.request("GET", "/v1/webhooks", {})).body.code).toBe("missing_api_key")
    })
  })

  describe("delivery", () => {
    it("delivers every event type, signed, with the full payment snapshot and its stateVersion", async () => {
      const endpoint = await register()
      const worker = await startWorker(server.run)
      try {
        const a = await server.payment(partner.sandbox, merchantId) // created
        await toProcessing(a.paymentId) // processing
        await server.run(Effect.gen(function*() {
          yield* (yield* Payments).settleOutcome(a.paymentId, "succeeded", `0x${"ab".repeat(32)}`)
        })) // succeeded
        await emit(a.paymentId, "payment.settled", (p) => p, { settlement: { status: "completed", txHash: `0x${"cd".repeat(32)}` } }) // settled
        const b = await server.payment(partner.sandbox, merchantId)
        await toProcessing(b.paymentId)
        await server.run(Effect.gen(function*() {
          yield* (yield* Payments).settleOutcome(b.paymentId, "failed", null)
        })) // failed
        const c = await server.payment(partner.sandbox, merchantId)
        expect((await server.request("POST", `/v1/payments/${c.paymentId}/cancel`, { apiKey: partner.sandbox })).status).toBe(200) // cancelled
        const d = await server.payment(partner.sandbox, merchantId)
        await server.expireNow(d.paymentId) // expired, by the worker
        await receiver.waitFor(() => new Set(receiver.on(endpoint.path).map((r) => r.envelope?.type)).size === 7, 15_000, "all seven types")
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 11, 5_000, "every event")
        const got = receiver.on(endpoint.path)
        expect(got.every((r) => r.verified)).toBe(true)
        for (const r of got) {
          const envelope = decodePaymentEnvelope(r.envelope)
          expect(envelope.id).toBe(r.webhookId)
          expect(envelope.id).toMatch(/^evt_/)
          expect(envelope.apiVersion).toBe("2026-02-18")
          expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)
          expect(r.headers["content-type"]).toBe("application/json")
        }
        const byPayment = (id: string) => got.map((r) => r.envelope).filter((e) => e.data.payment.paymentId === id)
        const sequence = (id: string) =>
          byPayment(id).sort((x, y) => x.data.payment.stateVersion - y.data.payment.stateVersion).map((e) => [e.type, e.data.payment.stateVersion, e.data.payment.status])
        expect(sequence(a.paymentId)).toEqual([
          ["payment.created", 1, "requires_action"],
          ["payment.processing", 2, "processing"],
          ["payment.succeeded", 3, "succeeded"],
          ["payment.settled", 4, "succeeded"]
        ])
        expect(sequence(b.paymentId)).toEqual([
          ["payment.created", 1, "requires_action"],
          ["payment.processing", 2, "processing"],
          ["payment.failed", 3, "failed"]
        ])
        expect(sequence(c.paymentId)).toEqual([["payment.created", 1, "requires_action"], ["payment.cancelled", 2, "cancelled"]])
        expect(sequence(d.paymentId).map(([type]) => type)).toEqual(["payment.created", "payment.expired"])
        // The snapshot is the partner API's payment record as of the event.
        const succeeded = byPayment(a.paymentId).find((e) => e.type === "payment.succeeded")!
        const current = await server.request("GET", `/v1/payments/${a.paymentId}`, { apiKey: partner.sandbox })
        expect(succeeded.data.payment).toEqual({ ...current.body, stateVersion: 3, updatedAt: succeeded.data.payment.updatedAt })
        expect(succeeded.data.payment.transaction).toEqual({ chainId: "eip155:1", hash: `0x${"ab".repeat(32)}`, explorerUrl: null })
        expect(succeeded.data.stage).toEqual({ txHash: `0x${"ab".repeat(32)}` })
        expect(byPayment(c.paymentId).find((e) => e.type === "payment.cancelled")!.data.stage).toEqual({ reason: "cancelled_by_merchant" })
        // The log: one successful attempt each, once the worker has recorded the last answers (it records
        // after the receiver answered, so a delivery the receiver has seen may still read pending).
        const log = await eventually(() => deliveriesOf(endpoint.id), (entries) => entries.every((entry) => entry.status !== "pending"))
        expect(log.length).toBe(got.length)
        for (const entry of log) {
          expect(entry).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null, redelivery: false })
          expect(entry.lastDurationMs).toBeGreaterThanOrEqual(0)
        }
      } finally {
        await worker.stop()
        await server.request("DELETE", `/v1/webhooks/${endpoint.id}`, { apiKey: partner.sandbox })
      }
    })

    it("filters by event type, merchant and mode", async () => {
      const onlySucceeded = await register({ events: ["payment.cancelled"] })
      const otherMerchant = await server.merchant(partner.sandbox)
      const scoped = await register({ merchantId: otherMerchant })
      const live = await register({}, partner.live)
      const worker = await startWorker(server.run)
      try {
        const p = await server.payment(partner.sandbox, merchantId)
        await server.request("POST", `/v1/payments/${p.paymentId}/cancel`, { apiKey: partner.sandbox })
        const q = await server.payment(partner.sandbox, otherMerchant)
        await receiver.waitFor(() => receiver.on(onlySucceeded.path).length >= 1 && receiver.on(scoped.path).length >= 1, 10_000, "deliveries")
        await new Promise((resolve) => setTimeout(resolve, 300))
        expect(receiver.on(onlySucceeded.path).map((r) => [r.envelope.type, r.envelope.data.payment.paymentId])).toEqual([["payment.cancelled", p.paymentId]])
        expect(receiver.on(scoped.path).map((r) => [r.envelope.type, r.envelope.data.payment.paymentId])).toEqual([["payment.created", q.paymentId]])
        expect(receiver.on(live.path)).toEqual([])
      } finally {
        await worker.stop()
      }
    })

    it("completes the events of a partner without endpoints, creating no delivery; another partner's events among them still go out", async () => {
      const quiet = await server.partner()
      const quietMerchant = await server.merchant(quiet.sandbox)
      const hook = await register()
      const quietEvents = () =>
        server.run(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ readonly processed: boolean; readonly deliveries: number }>`
            SELECT e.processed_at IS NOT NULL AS processed, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
            FROM outbox_events e WHERE e.partner_id = ${quiet.partnerId}`
        }))
      // More than one window of theirs (the dispatcher's batch), with the other partner's payment in the middle.
      await Promise.all(Array.from({ length: 120 }, () => server.payment(quiet.sandbox, quietMerchant)))
      const addressed = await server.payment(partner.sandbox, merchantId)
      await Promise.all(Array.from({ length: 30 }, () => server.payment(quiet.sandbox, quietMerchant)))
      const worker = await startWorker(server.run)
      try {
        await receiver.waitFor(() => receiver.on(hook.path).some((r) => r.envelope.data.payment.paymentId === addressed.paymentId), 10_000, "the addressed event")
        const events = await eventually(quietEvents, (events) => events.every((e) => e.processed), 10_000)
        expect(events.length).toBe(150)
        expect(events.filter((e) => e.deliveries > 0)).toEqual([])
      } finally {
        await worker.stop()
      }
    })

    it("retries a 500 on the schedule until it succeeds; the log shows every attempt", async () => {
      const endpoint = await register()
      receiver.behave(endpoint.path, (n) => ({ status: n < 2 ? 500 : 204 }))
      const worker = await startWorker(server.run)
      try {
        await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 3, 10_000, "three attempts")
        await new Promise((resolve) => setTimeout(resolve, 100))
        const got = receiver.on(endpoint.path)
        expect(got.length).toBe(3)
        expect(new Set(got.map((r) => r.webhookId)).size).toBe(1)
        expect(got.every((r) => r.verified)).toBe(true)
        expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(140) // the (fast) schedule's 150 ms
        const [entry] = await eventually(() => deliveriesOf(endpoint.id), (log) => log[0]?.status === "succeeded")
        expect(entry).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 204, lastError: null })
      } finally {
        await worker.stop()
      }
    })

    it("retries a receiver that does not answer in time", async () => {
      const endpoint = await register()
      receiver.behave(endpoint.path, (n) => ({ status: 200, delayMs: n === 0 ? 1_500 : 0 }))
      const worker = await startWorker(server.run, { requestTimeoutMs: 400 })
      try {
        await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 2, 10_000, "the retry")
        const [entry] = await eventually(() => deliveriesOf(endpoint.id), (log) => log[0]?.status === "succeeded")
        expect(entry).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200 })
        expect(receiver.on(endpoint.path).every((r) => r.verified)).toBe(true)
      } finally {
        await worker.stop()
      }
    })

    it("counts a redirect as a failure (never followed) and ends failed after the last retry; redelivery sends it again", async () => {
      const endpoint = await register({ events: ["payment.created"] })
      const target = newPath()
      receiver.behave(endpoint.path, () => ({ status: 302, headers: { location: receiver.url(target) } }))
      const worker = await startWorker(server.run)
      try {
        await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 4, 10_000, "four attempts")
        let log = await eventually(() => deliveriesOf(endpoint.id), (entries) => entries[0]?.status === "failed")
        expect(log).toHaveLength(1)
        expect(log[0]).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: 302, nextAttemptAt: null })
        expect(log[0].lastError).toContain("redirect")
        expect(receiver.on(target)).toEqual([])
        expect(receiver.on(endpoint.path)).toHaveLength(4)
        // Redelivery: a new delivery of the same event, sent at once.
        receiver.behave(endpoint.path, () => ({ status: 200 }))
        const eventId = receiver.on(endpoint.path)[0]!.webhookId
        const redelivered = await server.request("POST", `/v1/events/${eventId}/redeliver?endpointId=${endpoint.id}`, { apiKey: partner.sandbox })
        expect(redelivered.status, redelivered.text).toBe(202)
        expect(redelivered.body.eventId).toBe(eventId)
        expect(redelivered.body.deliveries).toHaveLength(1)
        expect(redelivered.body.deliveries[0]).toMatchObject({ endpointId: endpoint.id, status: "pending", attempts: 0, redelivery: true })
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 5, 10_000, "the redelivery")
        const last = receiver.on(endpoint.path).at(-1)!
        expect(last.webhookId).toBe(eventId)
        expect(last.verified).toBe(true)
        log = await eventually(() => deliveriesOf(endpoint.id), (entries) => entries.some((d) => d.redelivery && d.status === "succeeded"))
        expect(log.map((d) => [d.redelivery, d.status, d.attempts])).toEqual([[true, "succeeded", 1], [false, "failed", 4]])
        // Without endpointId: to every active endpoint subscribed to the event (this one included).
        const toAll = await server.request("POST", `/v1/events/${eventId}/redeliver`, { apiKey: partner.sandbox })
        expect(toAll.status).toBe(202)
        expect(toAll.body.deliveries.map((d: any) => d.endpointId)).toContain(endpoint.id)
        expect((await server.request("POST", `/v1/events/${eventId}/redeliver?endpointId=whe_nope`, { apiKey: partner.sandbox })).body.code)
          .toBe("partner_not_found")
        // Another partner cannot redeliver it.
        const other = await server.partner()
        expect((await server.request("POST", `/v1/events/${eventId}/redeliver`, { apiKey: other.sandbox })).status).toBe(404)
        expect((await server.request("POST", `/v1/events/${eventId}/redeliver`, { apiKey: partner.live })).status).toBe(404)
      } finally {
        await worker.stop()
      }
    })

    it("disables an endpoint that responds 410 Gone; the others go on", async () => {
      const gone = await register()
      const healthy = await register()
      receiver.behave(gone.path, () => ({ status: 410 }))
      const worker = await startWorker(server.run)
      try {
        await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(gone.path).length >= 1 && receiver.on(healthy.path).length >= 1, 10_000, "deliveries")
        await expect.poll(async () =>
          (await server.request("GET", "/v1/webhooks?limit=100", { apiKey: partner.sandbox })).body.data.find((e: any) => e.id === gone.id)?.status
        ).toBe("disabled")
        const [entry] = await deliveriesOf(gone.id)
        expect(entry).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 410 })
        await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(healthy.path).length >= 2, 10_000, "the next event")
        await new Promise((resolve) => setTimeout(resolve, 200))
        expect(receiver.on(gone.path)).toHaveLength(1)
      } finally {
        await worker.stop()
      }
    })

    it("a slow endpoint does not delay the others", async () => {
      const slow = await register()
      const fast = await register()
      // Longer than the fast endpoint's ten deliveries take even on a loaded machine. Held up behind the slow
      // endpoint (a shared queue, a batch that waits for its slowest), they would wait for one of its answers.
      const slowMs = 8_000
      receiver.behave(slow.path, () => ({ status: 200, delayMs: slowMs }))
      const worker = await startWorker(server.run, { requestTimeoutMs: 2 * slowMs }, { perEndpointConcurrency: 2 })
      try {
        const started = Date.now()
        for (let i = 0; i < 10; i++) await server.payment(partner.sandbox, merchantId)
        await receiver.waitFor(() => receiver.on(fast.path).length >= 10, slowMs, "the fast endpoint")
        expect(Date.now() - started).toBeLessThan(slowMs)
        // Two at a time for the slow endpoint, both still unanswered.
        expect(receiver.on(slow.path).length).toBeLessThanOrEqual(2)
      } finally {
        await worker.stop()
      }
    })

    it("refuses at delivery, on the resolved address, an endpoint that points inside", async () => {
      // Registered while allowed (e.g. before the configuration changed); delivery checks again.
      const path = newPath()
      const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: `http://localhost:${receiver.port}${path}` } })
      expect(created.status, created.text).toBe(201)
      const worker = await startWorker(server.run, { allowPrivateAddresses: false, retrySchedule: { delays: [], jitter: 0 } })
      try {
        await server.payment(partner.sandbox, merchantId)
        const log = await eventually(() => deliveriesOf(created.body.id), (entries) => entries[0]?.status === "failed")
        expect(log[0]).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null })
        expect(log[0].lastError).toMatch(/non-public address \((127\.0\.0\.1|::1)\)/)
        expect(receiver.on(path)).toEqual([])
      } finally {
        await worker.stop()
        await server.request("DELETE", `/v1/webhooks/${created.body.id}`, { apiKey: partner.sandbox })
      }
    })

    it("expires a payment within 5 s of expiresAt and sends payment.expired", async () => {
      const endpoint = await register({ events: ["payment.expired"] })
      const worker = await startWorker(server.run, {}, { expiryIntervalMs: 1_000 })
      try {
        const p = await server.payment(partner.sandbox, merchantId)
        await server.expireNow(p.paymentId)
        const started = Date.now()
        const stored = () =>
          server.run(Effect.gen(function*() {
            return Option.getOrThrow(yield* (yield* PaymentRepository).findById(p.paymentId)).status
          }))
        while ((await stored()) !== "expired") {
          if (Date.now() - started > 5_000) throw new Error("not expired within 5 s")
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        await receiver.waitFor(() => receiver.on(endpoint.path).length >= 1, 5_000, "payment.expired")
        const [got] = receiver.on(endpoint.path)
        expect(got!.envelope.type).toBe("payment.expired")
        expect(got!.envelope.data.payment).toMatchObject({ paymentId: p.paymentId, status: "expired", isFinal: true, stateVersion: 3 })
      } finally {
        await worker.stop()
      }
    })

    it("forgets idempotency keys past their 24 hours; a live key stays", async () => {
      const owner = `ptn_FORGET${randomBytes(4).toString("hex")}`
      const claimAt = (key: string, at: number) =>
        server.run(Effect.flatMap(IdempotencyStore, (store) => store.claim({ partnerId: owner, route: "POST /v1/payments", key }, "h", at)))
      await claimAt("old", Date.now() - 25 * 3_600_000)
      await claimAt("live", Date.now() - 23 * 3_600_000)
      const keys = () =>
        server.run(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return (yield* sql<{ readonly key: string }>`SELECT key FROM idempotency_keys WHERE partner_id = ${owner} ORDER BY key`).map((r) => r.key)
        }))
      expect(await keys()).toEqual(["live", "old"])
      const worker = await startWorker(server.run, {}, { expiryIntervalMs: 250 })
      try {
        const started = Date.now()
        while ((await keys()).includes("old")) {
          if (Date.now() - started > 5_000) throw new Error("the expired key was not forgotten within 5 s")
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect(await keys()).toEqual(["live"])
      } finally {
        await worker.stop()
      }
    })
  })
})
