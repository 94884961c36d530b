import { EventOutbox, type OutboxEvent, PaymentRepository, type WebhookEvent } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor, newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

// Empties the outbox (every test of this suite starts from none), then stores `count` payments,
// each with one event, created a second apart: answers the events oldest first.
const seedEvents = (count: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM outbox_events`
    const repo = yield* PaymentRepository
    const merchant = yield* newMerchant(yield* newPartner())
    const events: Array<OutboxEvent> = []
    for (let i = 0; i < count; i++) {
      const payment = yield* newPayment(merchant, { createdAt: 1_700_000_000_000 + i * 1000, updatedAt: 1_700_000_000_000 + i * 1000 })
      const event = yield* eventFor(payment, "payment.created", { index: i })
      yield* repo.insert(payment, [event])
      events.push(event)
    }
    return events
  })

const idsOf = (events: ReadonlyArray<WebhookEvent>) => events.map((e) => e.id)

adapterSuite("SqlEventOutbox", (it, db) => {
  it.effect("claims oldest first, decodes the stored event exactly, and never hands out a completed one", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const events = yield* seedEvents(5)
      const first = yield* outbox.claim(2, 60_000)
      assert.deepStrictEqual(first, events.slice(0, 2))
      assert.deepStrictEqual(idsOf(yield* outbox.claim(10, 60_000)), idsOf(events.slice(2)))
      // Everything is leased now.
      assert.deepStrictEqual(yield* outbox.claim(10, 60_000), [])
      assert.deepStrictEqual(yield* outbox.claim(0, 60_000), [])
      for (const event of events) yield* outbox.complete(event.id)
      yield* outbox.complete(events[0]!.id) // completing twice is harmless
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("an event this version cannot read (a newer version's) is set aside; the others are claimed", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const sql = yield* SqlClient.SqlClient
      const events = yield* seedEvents(3)
      // The oldest event as a newer version might write it: a payment status this one does not know.
      yield* sql`UPDATE outbox_events SET payload = jsonb_set(payload, '{payment,status}', '"disputed"') WHERE id = ${events[0]!.id}`
      yield* TestClock.setTime(1_800_000_000_000)
      assert.deepStrictEqual(idsOf(yield* outbox.claim(10, 30_000)), idsOf(events.slice(1)))
      for (const event of events.slice(1)) yield* outbox.complete(event.id)
      // Set aside for ten minutes, then offered again (to a version that may read it).
      yield* TestClock.adjust(30_000)
      assert.deepStrictEqual(yield* outbox.claim(10, 30_000), [])
      const [row] = yield* sql<{ readonly lease_until: unknown }>`SELECT lease_until FROM outbox_events WHERE id = ${events[0]!.id}`
      assert.strictEqual(Number(row!.lease_until), 1_800_000_000_000 + 10 * 60_000)
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("an expired lease makes the event claimable again; a completed event stays done", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const events = yield* seedEvents(3)
      yield* TestClock.setTime(1_800_000_000_000)
      assert.deepStrictEqual(idsOf(yield* outbox.claim(10, 30_000)), idsOf(events))
      yield* outbox.complete(events[1]!.id)
      yield* TestClock.adjust(29_999)
      assert.deepStrictEqual(yield* outbox.claim(10, 30_000), [], "the lease still runs")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(idsOf(yield* outbox.claim(10, 30_000)), [events[0]!.id, events[2]!.id], "the claimer died: re-claimed")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly id: string; readonly processed_at: unknown; readonly lease_until: unknown }>`
        SELECT id, processed_at, lease_until FROM outbox_events ORDER BY created_at`
      const now = yield* Clock.currentTimeMillis
      assert.deepStrictEqual(rows.map((r) => [r.id, r.processed_at === null ? null : Number(r.processed_at), r.lease_until === null ? null : Number(r.lease_until)]), [
        [events[0]!.id, null, now + 30_000],
        [events[1]!.id, now - 30_000, null],
        [events[2]!.id, null, now + 30_000]
      ])
    }).pipe(Effect.provide(TestClock.layer())))

  it.effect("concurrent claimers never receive the same event", () =>
    Effect.gen(function*() {
      const outbox = yield* EventOutbox
      const events = yield* seedEvents(24)
      const claimer = Effect.gen(function*() {
        const mine: Array<string> = []
        for (;;) {
          const batch = yield* outbox.claim(3, 60_000)
          if (batch.length === 0) return mine
          mine.push(...idsOf(batch))
        }
      })
      const results = yield* Effect.all([claimer, claimer, claimer, claimer], { concurrency: "unbounded" })
      const claimed = results.flat()
      assert.strictEqual(new Set(claimed).size, claimed.length, "no event twice")
      assert.deepStrictEqual([...claimed].sort(), idsOf(events).sort())
    }))

  if (db.concurrentTransactions) {
    it.effect("a claim skips rows another claimer's open transaction has locked (SKIP LOCKED), without waiting", () =>
      Effect.gen(function*() {
        const outbox = yield* EventOutbox
        const sql = yield* SqlClient.SqlClient
        const events = yield* seedEvents(10)
        const claimedByA = yield* Deferred.make<ReadonlyArray<WebhookEvent>>()
        const finishA = yield* Deferred.make<void>()
        // Claimer A claims inside a transaction that stays open: its rows stay locked and its
        // lease is not visible to others yet.
        const a = yield* Effect.gen(function*() {
          const batch = yield* outbox.claim(5, 60_000)
          yield* Deferred.succeed(claimedByA, batch)
          yield* Deferred.await(finishA)
        }).pipe(sql.withTransaction, Effect.forkChild)
        const batchA = yield* Deferred.await(claimedByA)
        assert.deepStrictEqual(idsOf(batchA), idsOf(events.slice(0, 5)))
        // B does not block on A's locks (it would time out) and gets the other five.
        const batchB = yield* outbox.claim(10, 60_000).pipe(Effect.timeout("5 seconds"))
        assert.deepStrictEqual(idsOf(batchB), idsOf(events.slice(5)))
        yield* Deferred.succeed(finishA, undefined)
        yield* Fiber.join(a)
        assert.deepStrictEqual(yield* outbox.claim(10, 60_000), [])
      }))

    it.effect("a claim whose transaction rolls back leaves its events claimable at once", () =>
      Effect.gen(function*() {
        const outbox = yield* EventOutbox
        const sql = yield* SqlClient.SqlClient
        const events = yield* seedEvents(3)
        yield* outbox.claim(10, 60_000).pipe(Effect.andThen(Effect.fail("crash" as const)), sql.withTransaction, Effect.flip)
        assert.deepStrictEqual(idsOf(yield* outbox.claim(10, 60_000)), idsOf(events))
      }))
  }
})
