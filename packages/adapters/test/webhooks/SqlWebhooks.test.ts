import { WebhookAdapters } from "@paygate/adapters"
import {
  DeliveryQueue,
  DeliveryResponse,
  type DeliveryId,
  EventOutbox,
  ExpiringPayments,
  type OutboxEvent,
  type PartnerId,
  PaymentRepository,
  responseOf,
  WebhookEndpoint,
  WebhookEndpointRepository
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { eventFor, newMerchant, newPartner, newPayment } from "../support/Fixtures.ts"
import { newEndpoint, webhookSuite } from "./WebhookSuite.ts"

// Stores `count` payments of `merchant`, each with one event, each a second after the last one
// stored (the outbox's order); answers the events.
let lastCreatedAt = 1_700_000_000_000
const seedEvents = (merchant: Parameters<typeof newPayment>[0], count: number) =>
  Effect.gen(function*() {
    const repo = yield* PaymentRepository
    const events: Array<OutboxEvent> = []
    for (let i = 0; i < count; i++) {
      lastCreatedAt += 1000
      const payment = yield* newPayment(merchant, { createdAt: lastCreatedAt, updatedAt: lastCreatedAt })
      const event = yield* eventFor(payment, "payment.created")
      yield* repo.insert(payment, [event])
      events.push(event)
    }
    return events
  })

const reset = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM webhook_deliveries`
  yield* sql`DELETE FROM outbox_events`
})

webhookSuite("SqlWebhookEndpointRepository", (it) => {
  it.effect("stores the secret encrypted, reads it back, lists newest first, deletes", () =>
    Effect.gen(function*() {
      const repo = yield* WebhookEndpointRepository
      const sql = yield* SqlClient.SqlClient
      const merchant = yield* newMerchant(yield* newPartner())
      const a = yield* newEndpoint(merchant, { events: ["payment.succeeded"] })
      yield* TestClock.adjust(1000)
      const b = yield* newEndpoint(merchant, { merchantScoped: true })
      const [row] = yield* sql<{ readonly secret_ciphertext: string }>`SELECT secret_ciphertext FROM webhook_endpoints WHERE id = ${a.id}`
      assert.match(row!.secret_ciphertext, /^v1\./)
      assert.notInclude(row!.secret_ciphertext, Redacted.value(a.secret).slice(6))
      const found = Option.getOrThrow(yield* repo.find(a.partnerId, a.mode, a.id))
      assert.strictEqual(Redacted.value(found.secret), Redacted.value(a.secret))
      assert.deepStrictEqual(found.events, ["payment.succeeded"])
      assert.strictEqual((Option.getOrThrow(yield* repo.find(b.partnerId, b.mode, b.id))).merchantId, merchant.id)
      assert.isTrue(Option.isNone(yield* repo.find(a.partnerId, "live", a.id)), "another mode sees nothing")
      assert.deepStrictEqual((yield* repo.list({ partnerId: a.partnerId, mode: a.mode, after: null, limit: 10 })).map((e) => e.id), [b.id, a.id])
      assert.deepStrictEqual(
        (yield* repo.list({ partnerId: a.partnerId, mode: a.mode, after: { createdAt: b.createdAt, id: b.id }, limit: 10 })).map((e) => e.id),
        [a.id]
      )
      assert.isTrue(yield* repo.remove(a.partnerId, a.mode, a.id))
      assert.isFalse(yield* repo.remove(a.partnerId, a.mode, a.id))
      assert.deepStrictEqual((yield* repo.active([a])).map((e) => e.id), [b.id])
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("reads the active endpoints of several owners at once: theirs only, in their modes, oldest first", () =>
    Effect.gen(function*() {
      const repo = yield* WebhookEndpointRepository
      const first = yield* newMerchant(yield* newPartner())
      const second = yield* newMerchant(yield* newPartner())
      const bystander = yield* newMerchant(yield* newPartner())
      const a = yield* newEndpoint(first)
      yield* TestClock.adjust(1000)
      const b = yield* newEndpoint(second)
      yield* TestClock.adjust(1000)
      const c = yield* newEndpoint(first)
      const disabled = yield* newEndpoint(second)
      yield* repo.update(new WebhookEndpoint({ ...disabled, status: "disabled" }))
      yield* newEndpoint(bystander)
      const owners = [{ partnerId: second.partnerId, mode: second.mode }, { partnerId: first.partnerId, mode: first.mode }]
      assert.deepStrictEqual((yield* repo.active(owners)).map((e) => e.id), [a.id, b.id, c.id])
      const otherMode = first.mode === "sandbox" ? "live" : "sandbox"
      assert.deepStrictEqual(yield* repo.active([{ partnerId: first.partnerId, mode: otherMode }]), [])
      assert.deepStrictEqual(yield* repo.active([]), [])
      // Whatever a partner id holds, it is a value compared, never part of the statement.
      const hostile = `${first.partnerId}","${bystander.partnerId}"}') OR true --` as PartnerId
      assert.deepStrictEqual(yield* repo.active([{ partnerId: hostile, mode: first.mode }]), [])
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("a secret under another key reads as empty (logged), without breaking reads", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoint = yield* newEndpoint(merchant)
      const other = yield* Effect.provide(
        WebhookAdapters.SqlWebhookEndpointRepository.make,
        WebhookAdapters.SecretCipher.layerKey(new Uint8Array(32).fill(9))
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      const found = Option.getOrThrow(yield* other.find(endpoint.partnerId, endpoint.mode, endpoint.id))
      assert.strictEqual(Redacted.value(found.secret), "")
    }))
})

webhookSuite("SqlDeliveryQueue", (it, db) => {
  it.effect("refreshes the planner's statistics once a backlog has grown (taken on an empty table, they would say none pending)", () =>
    Effect.gen(function*() {
      yield* reset
      const sql = yield* SqlClient.SqlClient
      const queue = yield* DeliveryQueue
      yield* sql`ANALYZE webhook_deliveries`
      const rows = sql<{ readonly n: number }>`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'webhook_deliveries'`
      assert.isBelow((yield* rows)[0]!.n, 1)
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoints = yield* Effect.forEach(Array.from({ length: 100 }), () => newEndpoint(merchant))
      const events = yield* seedEvents(merchant, 50)
      assert.strictEqual(yield* queue.fanOut(events.map((event) => ({ event, endpoints: endpoints.map((e) => e.id) }))), 5_000)
      assert.isAtLeast((yield* rows)[0]!.n, 5_000)
      yield* reset
    }))

  it.effect("fans out and completes events in one go; a second fan-out adds nothing", () =>
    Effect.gen(function*() {
      yield* reset
      const queue = yield* DeliveryQueue
      const outbox = yield* EventOutbox
      const merchant = yield* newMerchant(yield* newPartner())
      const [e1, e2] = [yield* newEndpoint(merchant), yield* newEndpoint(merchant)]
      const events = yield* seedEvents(merchant, 3)
      const claimed = yield* outbox.claim(10, 60_000)
      assert.strictEqual(claimed.length, 3)
      const created = yield* queue.fanOut(events.map((event) => ({ event, endpoints: [e1.id, e2.id] })))
      assert.strictEqual(created, 6)
      assert.strictEqual(yield* queue.fanOut(events.map((event) => ({ event, endpoints: [e1.id, e2.id] }))), 0)
      yield* TestClock.adjust(120_000)
      assert.deepStrictEqual(yield* outbox.claim(10, 60_000), [], "the events are processed")
      const listed = yield* queue.listForEndpoint({ endpointId: e1.id, after: null, limit: 10 })
      assert.strictEqual(listed.length, 3)
      assert.isTrue(listed.every((d) => d.status === "pending" && d.attempts === 0 && !d.redelivery))
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("completes the events of partners with no active endpoint, within the claim's window; the others stay claimable", () =>
    Effect.gen(function*() {
      yield* reset
      const outbox = yield* EventOutbox
      const sql = yield* SqlClient.SqlClient
      const repo = yield* WebhookEndpointRepository
      const addressed = yield* newMerchant(yield* newPartner())
      yield* newEndpoint(addressed)
      // An endpoint in the other mode only still counts: the decision is per partner, never wrong.
      const otherMode = yield* newMerchant(yield* newPartner())
      yield* newEndpoint({ ...otherMode, mode: otherMode.mode === "sandbox" ? "live" : "sandbox" } as typeof otherMode)
      const none = yield* newMerchant(yield* newPartner())
      const disabledOnly = yield* newMerchant(yield* newPartner())
      const disabled = yield* newEndpoint(disabledOnly)
      yield* repo.update(new WebhookEndpoint({ ...disabled, status: "disabled" }))
      const deletedOnly = yield* newMerchant(yield* newPartner())
      yield* repo.remove(deletedOnly.partnerId, deletedOnly.mode, (yield* newEndpoint(deletedOnly)).id)
      const keep = [...(yield* seedEvents(addressed, 1)), ...(yield* seedEvents(otherMode, 1))]
      const drop = [...(yield* seedEvents(none, 2)), ...(yield* seedEvents(disabledOnly, 1)), ...(yield* seedEvents(deletedOnly, 1))]
      const later = yield* seedEvents(none, 2)
      const leased = yield* seedEvents(none, 1)
      yield* sql`UPDATE outbox_events SET lease_until = ${(yield* Clock.currentTimeMillis) + 60_000}::bigint WHERE id = ${leased[0]!.id}`
      // The oldest six claimable: two kept, four completed; the two after them are outside the window.
      assert.strictEqual(yield* outbox.completeUnaddressed(6), 4)
      const processed = () =>
        Effect.map(sql<{ readonly id: string }>`SELECT id FROM outbox_events WHERE processed_at IS NOT NULL ORDER BY id`, (rows) => rows.map((r) => r.id))
      assert.deepStrictEqual(yield* processed(), drop.map((e) => e.id).sort())
      assert.strictEqual(yield* outbox.completeUnaddressed(0), 0)
      assert.strictEqual(yield* outbox.completeUnaddressed(100), 2, "the later ones; the leased one is left to its claimer")
      assert.deepStrictEqual(yield* processed(), [...drop, ...later].map((e) => e.id).sort())
      assert.deepStrictEqual((yield* outbox.claim(10, 60_000)).map((e) => e.id), keep.map((e) => e.id))
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("lists a partner's events of one mode, newest first, a page at a time", () =>
    Effect.gen(function*() {
      const queue = yield* DeliveryQueue
      const partner = yield* newPartner()
      const sandbox = yield* newMerchant(partner, { mode: "sandbox" })
      const older = yield* seedEvents(sandbox, 2)
      yield* TestClock.adjust(1000)
      const newer = yield* seedEvents(sandbox, 1)
      yield* seedEvents(yield* newMerchant(partner, { mode: "live" }), 1)
      yield* seedEvents(yield* newMerchant(yield* newPartner(), { mode: "sandbox" }), 1)
      const first = yield* queue.listEvents({ partnerId: partner.id, mode: "sandbox", after: null, limit: 2 })
      assert.strictEqual(first[0]!.id, newer[0]!.id)
      assert.strictEqual(first.length, 2)
      assert.include(older.map((e) => e.id), first[1]!.id)
      const all = yield* queue.listEvents({ partnerId: partner.id, mode: "sandbox", after: null, limit: 10 })
      assert.deepStrictEqual(all.map((row) => row.id).sort(), [...older, ...newer].map((e) => e.id).sort(), "only this partner's sandbox events")
      assert.deepStrictEqual(all[0]!.event, newer[0])
      const rest = yield* queue.listEvents({ partnerId: partner.id, mode: "sandbox", after: first[1]!, limit: 10 })
      assert.deepStrictEqual(rest.map((row) => row.id), all.slice(2).map((row) => row.id))
      assert.strictEqual(rest.length, 1)
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("claims due deliveries with a lease, at most perEndpoint per endpoint counting those in flight", () =>
    Effect.gen(function*() {
      yield* reset
      const queue = yield* DeliveryQueue
      const merchant = yield* newMerchant(yield* newPartner())
      const [slow, fast] = [yield* newEndpoint(merchant), yield* newEndpoint(merchant)]
      const events = yield* seedEvents(merchant, 6)
      yield* queue.fanOut(events.map((event) => ({ event, endpoints: [slow.id, fast.id] })))
      const first = yield* queue.claim({ limit: 10, leaseMillis: 30_000, perEndpoint: 2 })
      assert.strictEqual(first.filter((c) => c.endpoint.id === slow.id).length, 2)
      assert.strictEqual(first.filter((c) => c.endpoint.id === fast.id).length, 2)
      const claimedEvent = first[0]!
      assert.deepStrictEqual(claimedEvent.event, events.find((e) => e.id === claimedEvent.event.id))
      assert.strictEqual(Redacted.value(claimedEvent.endpoint.secret), Redacted.value(slow.secret))
      // The caller has 5 of the slow endpoint's in flight (its limit) and 2 of the fast one's.
      const inFlight = new Map([[slow.id, 5], [fast.id, 2]])
      const second = yield* queue.claim({ limit: 10, leaseMillis: 30_000, perEndpoint: 5, inFlight })
      assert.deepStrictEqual([...new Set(second.map((c) => c.endpoint.id))], [fast.id])
      assert.strictEqual(second.length, 3)
      const seen = new Set([...first, ...second].map((c) => c.delivery.id))
      assert.strictEqual(seen.size, 7, "never the same delivery twice while leased")
      yield* TestClock.adjust(30_000)
      const third = yield* queue.claim({ limit: 20, leaseMillis: 30_000, perEndpoint: 20 })
      assert.strictEqual(third.length, 12, "leases over: everything pending is due again")
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("a delivery of an event this version cannot read (a newer version's) is set aside; the event is left out of listings", () =>
    Effect.gen(function*() {
      yield* reset
      const sql = yield* SqlClient.SqlClient
      const queue = yield* DeliveryQueue
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoint = yield* newEndpoint(merchant)
      const events = yield* seedEvents(merchant, 3)
      yield* queue.fanOut(events.map((event) => ({ event, endpoints: [endpoint.id] })))
      yield* sql`UPDATE outbox_events SET payload = jsonb_set(payload, '{payment,status}', '"disputed"') WHERE id = ${events[1]!.id}`
      yield* TestClock.setTime(1_800_000_000_000)
      const claimed = yield* queue.claim({ limit: 10, leaseMillis: 30_000, perEndpoint: 10 })
      assert.deepStrictEqual(claimed.map((c) => c.event.id).sort(), [events[0]!.id, events[2]!.id].sort())
      const [row] = yield* sql<{ readonly lease_until: unknown }>`SELECT lease_until FROM webhook_deliveries WHERE event_id = ${events[1]!.id}`
      assert.strictEqual(Number(row!.lease_until), 1_800_000_000_000 + 10 * 60_000)
      const listed = yield* queue.listEvents({ partnerId: merchant.partnerId, mode: merchant.mode, after: null, limit: 10 })
      assert.deepStrictEqual(listed.map((e) => e.id).sort(), [events[0]!.id, events[2]!.id].sort())
      assert.isTrue(Option.isNone(yield* queue.findEvent(events[1]!.id)))
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("records attempts as compare-and-set; 410 disables the endpoint and ends its pending deliveries", () =>
    Effect.gen(function*() {
      yield* reset
      const queue = yield* DeliveryQueue
      const endpoints = yield* WebhookEndpointRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoint = yield* newEndpoint(merchant)
      const events = yield* seedEvents(merchant, 3)
      yield* queue.fanOut(events.map((event) => ({ event, endpoints: [endpoint.id] })))
      const [a, b] = yield* queue.claim({ limit: 2, leaseMillis: 30_000, perEndpoint: 2 })
      const retry = {
        deliveryId: a!.delivery.id,
        attemptsBefore: 0,
        statusCode: 500,
        durationMs: 12,
        error: "HTTP 500",
        requestHeaders: { "webhook-id": "evt_1", "webhook-timestamp": "1700000000", "content-type": "application/json" },
        response: responseOf({
          status: 500,
          headers: { "Content-Type": "text/html", server: "kept-out" },
          body: new TextEncoder().encode("<h1>Oops \u00e9</h1>\u0000"),
          truncated: false
        }),
        status: "pending" as const,
        nextAttemptAt: 1_000_000,
        disableEndpoint: false
      }
      assert.isTrue(yield* queue.record(retry))
      assert.isFalse(yield* queue.record(retry), "a second record of the same claim changes nothing")
      assert.isTrue(
        yield* queue.record({ ...retry, deliveryId: b!.delivery.id, statusCode: 410, error: "gone", response: null, status: "failed", nextAttemptAt: null, disableEndpoint: true })
      )
      const found = Option.getOrThrow(yield* endpoints.find(endpoint.partnerId, endpoint.mode, endpoint.id))
      assert.strictEqual(found.status, "disabled")
      const listed = yield* queue.listForEndpoint({ endpointId: endpoint.id, after: null, limit: 10 })
      assert.deepStrictEqual(listed.map((d) => d.status), ["failed", "failed", "failed"])
      const recorded = listed.find((d) => d.id === a!.delivery.id)!
      assert.strictEqual(recorded.attempts, 1)
      assert.strictEqual(recorded.lastStatusCode, 500)
      assert.strictEqual(recorded.lastDurationMs, 12)
      // The response is kept with the outcome; the 410 attempt had no response recorded.
      assert.deepStrictEqual(recorded.lastRequestHeaders, retry.requestHeaders)
      assert.deepStrictEqual(
        recorded.lastResponse,
        new DeliveryResponse({ status: 500, headers: { "content-type": "text/html" }, body: "<h1>Oops \u00e9</h1>\uFFFD", truncated: false })
      )
      const gone = listed.find((d) => d.id === b!.delivery.id)!
      assert.deepStrictEqual([gone.lastStatusCode, gone.lastResponse], [410, null])
      assert.deepStrictEqual(yield* queue.claim({ limit: 10, leaseMillis: 1, perEndpoint: 10 }), [])
      assert.deepStrictEqual(yield* endpoints.active([endpoint]), [])
    }))

  it.effect("release makes claimed deliveries due at once; redeliver adds new deliveries; findEvent reads any event", () =>
    Effect.gen(function*() {
      yield* reset
      const queue = yield* DeliveryQueue
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoint = yield* newEndpoint(merchant)
      const [event] = yield* seedEvents(merchant, 1)
      yield* queue.fanOut([{ event: event!, endpoints: [endpoint.id] }])
      const [claimed] = yield* queue.claim({ limit: 5, leaseMillis: 60_000, perEndpoint: 5 })
      assert.deepStrictEqual(yield* queue.claim({ limit: 5, leaseMillis: 60_000, perEndpoint: 5 }), [])
      yield* queue.release([claimed!.delivery.id])
      assert.strictEqual((yield* queue.claim({ limit: 5, leaseMillis: 60_000, perEndpoint: 5 })).length, 1)
      const again = yield* queue.redeliver(event!, [endpoint.id])
      assert.strictEqual(again.length, 1)
      assert.isTrue(again[0]!.redelivery)
      assert.strictEqual(again[0]!.status, "pending")
      assert.strictEqual((yield* queue.redeliver(event!, [endpoint.id])).length, 1, "each redelivery is a new delivery")
      assert.deepStrictEqual(Option.getOrThrow(yield* queue.findEvent(event!.id)), event)
      assert.isTrue(Option.isNone(yield* queue.findEvent("evt_nope" as OutboxEvent["id"])))
      yield* queue.release([] as ReadonlyArray<DeliveryId>)
    }))

  it.effect("concurrent claimers never receive the same delivery", () =>
    Effect.gen(function*() {
      yield* reset
      const queue = yield* DeliveryQueue
      const merchant = yield* newMerchant(yield* newPartner())
      const endpoints = [yield* newEndpoint(merchant), yield* newEndpoint(merchant), yield* newEndpoint(merchant)]
      const events = yield* seedEvents(merchant, 20)
      yield* queue.fanOut(events.map((event) => ({ event, endpoints: endpoints.map((e) => e.id) })))
      const claimer = Effect.gen(function*() {
        const mine: Array<string> = []
        for (;;) {
          const batch = yield* queue.claim({ limit: 4, leaseMillis: 60_000, perEndpoint: 2 })
          if (batch.length === 0) return mine
          mine.push(...batch.map((c) => c.delivery.id))
        }
      })
      const results = yield* Effect.all([claimer, claimer, claimer, claimer], { concurrency: "unbounded" })
      const all = results.flat()
      assert.strictEqual(all.length, 60)
      assert.strictEqual(new Set(all).size, 60)
    }))

  if (db.concurrentTransactions) {
    it.effect("a claim skips deliveries locked by another claimer's open transaction (SKIP LOCKED), without waiting", () =>
      Effect.gen(function*() {
        yield* reset
        const queue = yield* DeliveryQueue
        const sql = yield* SqlClient.SqlClient
        const merchant = yield* newMerchant(yield* newPartner())
        const endpoint = yield* newEndpoint(merchant)
        const events = yield* seedEvents(merchant, 20)
        yield* queue.fanOut(events.map((event) => ({ event, endpoints: [endpoint.id] })))
        const claimedByA = yield* Deferred.make<ReadonlyArray<string>>()
        const finishA = yield* Deferred.make<void>()
        // A's claim stays in an open transaction: the rows it took stay locked (a real claim
        // commits at once).
        const a = yield* Effect.gen(function*() {
          const batch = yield* queue.claim({ limit: 2, leaseMillis: 60_000, perEndpoint: 2 })
          yield* Deferred.succeed(claimedByA, batch.map((c) => c.delivery.id))
          yield* Deferred.await(finishA)
        }).pipe(sql.withTransaction, Effect.forkChild)
        const mine = yield* Deferred.await(claimedByA)
        assert.strictEqual(mine.length, 2)
        // B picks the 10 oldest, A's 2 among them (not yet leased for B's snapshot), and locks only
        // what it picked: it gets the other 8, at once.
        const b = yield* queue.claim({ limit: 10, leaseMillis: 60_000, perEndpoint: 10 }).pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(b.length, 8)
        assert.isTrue(b.every((c) => !mine.includes(c.delivery.id)))
        yield* Deferred.succeed(finishA, undefined)
        yield* Fiber.join(a)
        // A committed its leases: the rest is there for the next claim.
        const rest = yield* queue.claim({ limit: 20, leaseMillis: 60_000, perEndpoint: 20 })
        assert.strictEqual(rest.length, 10)
        assert.strictEqual(new Set([...mine, ...b.map((c) => c.delivery.id), ...rest.map((c) => c.delivery.id)]).size, 20)
      }))
  }
})

webhookSuite("SqlExpiringPayments", (it) => {
  it.effect("finds requires_action payments at or past expiresAt, earliest first", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const finder = yield* ExpiringPayments
      const merchant = yield* newMerchant(yield* newPartner())
      const base = 2_000_000_000
      const late = yield* newPayment(merchant, { expiresAt: base - 10 })
      const due = yield* newPayment(merchant, { expiresAt: base })
      const notYet = yield* newPayment(merchant, { expiresAt: base + 1 })
      const cancelled = yield* newPayment(merchant, { expiresAt: base - 100, status: "cancelled", cancelledReason: "cancelled_by_user", cancelledAt: 1 })
      for (const p of [late, due, notYet, cancelled]) yield* repo.insert(p, [])
      const found = yield* finder.due(base, 100)
      assert.deepStrictEqual(found.filter((id) => [late.id, due.id, notYet.id, cancelled.id].includes(id)), [late.id, due.id])
    }))
})
