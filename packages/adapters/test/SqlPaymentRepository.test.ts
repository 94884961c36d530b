import {
  Commitment,
  compareCreation,
  type Cursor,
  type IdempotencyLease,
  IdempotencyStore,
  type OutboxEvent,
  Payment,
  PaymentRepository,
  type PaymentQuery
} from "@paygate/domain"
import { SqlIdempotencyStore } from "@paygate/adapters"
import { assert } from "@effect/vitest"
import { Context, Effect, Exit, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { outboxColumns } from "../src/internal/PaymentRow.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor, newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"
import { leaseOf, loggingStatements, recordingStatements } from "./support/StatementLog.ts"

const paymentJson = (payment: Payment) => JSON.stringify(Schema.encodeSync(Schema.toCodecJson(Payment))(payment))

// An insert as the API's create makes it with an `Idempotency-Key`: inside `completingWrite`, held
// until the response (`body`) is known, then written with it. Answers how it ended.
const insertAnswering = (lease: IdempotencyLease, payment: Payment, events: ReadonlyArray<OutboxEvent>, body: string) =>
  Effect.gen(function*() {
    const repo = yield* PaymentRepository
    const keys = yield* IdempotencyStore
    const done = yield* keys.completingWrite(lease, Effect.as(repo.insert(payment, events), { value: payment.id, keep: { status: 201, body } }))
    return done.outcome
  })

const storedEvents = (paymentId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly id: string; readonly type: string }>`
      SELECT id, type FROM outbox_events WHERE payment_id = ${paymentId} ORDER BY created_at, id`
  })

adapterSuite("SqlPaymentRepository", (it, db) => {
  it.effect("round-trips a payment exactly, with its event written alongside", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const payment = yield* newPayment(merchant, {
        value: 999_999_999_999_999_999n,
        currency: "JPY",
        referenceId: "ref ✓ \"quoted\" 'single' \\ back",
        status: "processing",
        stateVersion: 2,
        checkout: null,
        commitment: new Commitment({
          kind: "pull",
          account: "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          asset: "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          tokenAmount: 123_456_789_012_345_678_901_234_567_890n,
          fingerprint: "f".repeat(64),
          txHash: null,
          authorization: null,
          reference: null,
          walletName: "Test wallet",
          confirmedAt: 1_700_000_123
        })
      })
      const event = yield* eventFor(payment, "payment.processing", { amount: "123" })
      yield* repo.insert(payment, [event])
      const found = yield* repo.findById(payment.id)
      assert.isTrue(Option.isSome(found))
      const stored = Option.getOrThrow(found)
      assert.instanceOf(stored, Payment)
      assert.deepStrictEqual(stored, payment)
      assert.strictEqual(stored.value, 999_999_999_999_999_999n)
      assert.strictEqual(paymentJson(stored), paymentJson(payment))
      assert.deepStrictEqual((yield* storedEvents(payment.id)).map((e) => e.id), [event.id])
    }))

  it.effect("round-trips a cancelled payment (second-based timestamps, nullables)", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const payment = yield* newPayment(merchant, {
        status: "cancelled",
        cancelledReason: "cancelled_by_merchant",
        cancelledAt: 1_700_000_456,
        expiresAt: 1_700_000_999,
        createdAt: 1_700_000_000_123,
        updatedAt: 1_700_000_456_789
      })
      yield* repo.insert(payment, [])
      assert.strictEqual(paymentJson(Option.getOrThrow(yield* repo.findById(payment.id))), paymentJson(payment))
      assert.isTrue(Option.isNone(yield* repo.findById("pay_UNKNOWN" as Payment["id"])))
    }))

  it.effect("reads outside a transaction share one statement; each gets its own payment, or none", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const first = yield* newPayment(merchant, { referenceId: "first" })
      const second = yield* newPayment(merchant, { referenceId: "second" })
      yield* repo.insert(first, [])
      yield* repo.insert(second, [])
      const [found, reads] = yield* loggingStatements(
        "FROM payments",
        Effect.all([first.id, "pay_UNKNOWN" as Payment["id"], second.id, first.id].map((id) => repo.findById(id)), { concurrency: "unbounded" })
      )
      assert.deepStrictEqual(found.map(Option.map((payment) => payment.referenceId)), [
        Option.some("first"),
        Option.none(),
        Option.some("second"),
        Option.some("first")
      ])
      assert.strictEqual(reads.length, 1)
    }))

  it.effect("inside a transaction, reads and inserts run on its connection, one statement each: they see its own writes", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* PaymentRepository
      const payment = yield* newPayment(yield* newMerchant(yield* newPartner()))
      const other = yield* newPayment(yield* newMerchant(yield* newPartner()))
      let inside: ReadonlyArray<Option.Option<Payment>> = []
      const [rolledBack, inserts] = yield* loggingStatements(
        "INSERT INTO payments",
        Effect.gen(function*() {
          // Inside a transaction nothing is shared (a failed shared statement would abort it): one statement each.
          yield* Effect.all([repo.insert(payment, []), repo.insert(other, [])], { concurrency: "unbounded" })
          inside = yield* Effect.all([repo.findById(payment.id), repo.findById(other.id)], { concurrency: "unbounded" })
          return yield* Effect.fail("roll back" as const)
        }).pipe(sql.withTransaction, Effect.exit)
      )
      assert.isTrue(Exit.isFailure(rolledBack))
      assert.strictEqual(inserts.length, 2)
      assert.deepStrictEqual(inside.map(Option.isSome), [true, true])
      assert.isTrue(Option.isNone(yield* repo.findById(payment.id)))
    }))

  // PGlite is one connection: a read outside an open transaction waits for it to end.
  if (db.concurrentTransactions) {
    it.effect("reads started together inside and outside a transaction are batched apart: each runs on its own connection", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* PaymentRepository
        const payment = yield* newPayment(yield* newMerchant(yield* newPartner()))
        const outsideRead = Effect.updateContext(repo.findById(payment.id), (context: Context.Context<never>) => Context.omit(sql.transactionService)(context))
        let found: Array<ReadonlyArray<Option.Option<Payment>>> = []
        const rolledBack = yield* Effect.gen(function*() {
          yield* repo.insert(payment, [])
          // Both orders: the batch a read opens runs in that read's context.
          found = [
            yield* Effect.all([outsideRead, repo.findById(payment.id)], { concurrency: "unbounded" }),
            yield* Effect.all([repo.findById(payment.id), outsideRead], { concurrency: "unbounded" })
          ]
          return yield* Effect.fail("roll back" as const)
        }).pipe(sql.withTransaction, Effect.exit)
        assert.deepStrictEqual(Exit.findErrorOption(rolledBack), Option.some("roll back" as const))
        // Only the transaction sees its own insert.
        assert.deepStrictEqual(found.map((reads) => reads.map(Option.isSome)), [[false, true], [true, false]])
      }))
  }

  it.effect("an id no row can hold (NUL, a lone surrogate) finds nothing, and the reads it started with still find theirs", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const payment = yield* newPayment(yield* newMerchant(yield* newPartner()))
      yield* repo.insert(payment, [])
      const ids = [`${payment.id}\0`, payment.id, "pay_\uD800", payment.id] as Array<Payment["id"]>
      const found = yield* Effect.all(ids.map((id) => repo.findById(id)), { concurrency: "unbounded" })
      assert.deepStrictEqual(found.map(Option.isSome), [false, true, false, true])
    }))

  it.effect("update is a compare-and-set: a stale version writes nothing and no event", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const v1 = yield* newPayment(merchant)
      yield* repo.insert(v1, [yield* eventFor(v1, "payment.created")])

      const v2 = new Payment({ ...v1, status: "cancelled", cancelledReason: "cancelled_by_user", cancelledAt: 1_700_000_100, stateVersion: 2, updatedAt: v1.updatedAt + 1 })
      const cancelled = yield* eventFor(v2, "payment.cancelled")
      assert.isTrue(yield* repo.update(v2, [cancelled]))

      // Another writer read v1 too and tries to move it to processing: it lost.
      const stale = new Payment({ ...v1, status: "processing", stateVersion: 2, updatedAt: v1.updatedAt + 2 })
      assert.isFalse(yield* repo.update(stale, [yield* eventFor(stale, "payment.processing")]))
      // Skipping a version is refused too.
      const skipping = new Payment({ ...v2, stateVersion: 4 })
      assert.isFalse(yield* repo.update(skipping, [yield* eventFor(skipping, "payment.expired")]))

      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(v1.id)), v2)
      // Both events may carry the same created_at millisecond, where their ids' random part decides the order.
      assert.sameMembers((yield* storedEvents(v1.id)).map((e) => e.type), ["payment.created", "payment.cancelled"])
    }))

  it.effect("an update without gas is one statement, outside any transaction, that stores each event as written", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const v1 = yield* newPayment(merchant)
      yield* repo.insert(v1, [yield* eventFor(v1, "payment.created")])
      const v2 = new Payment({ ...v1, status: "processing", stateVersion: 2, updatedAt: v1.updatedAt + 1 })
      const events = [yield* eventFor(v2, "payment.processing"), yield* eventFor(v2, "payment.succeeded")]
      const [updated, sent] = yield* recordingStatements(repo.update(v2, events))
      assert.isTrue(updated)
      assert.strictEqual(sent.length, 1)
      const rows = yield* sql<{ readonly id: string; readonly payload: unknown; readonly created_at: string | number }>`
        SELECT id, payload, created_at FROM outbox_events WHERE id IN ${sql.in(events.map((e) => e.id))}`
      assert.sameDeepMembers(
        rows.map((row) => ({ id: row.id, payload: row.payload, created_at: Number(row.created_at) })),
        events.map(outboxColumns).map((c) => ({ id: c.id, payload: JSON.parse(c.payload), created_at: c.created_at }))
      )
    }))

  it.effect("an update of an unknown payment answers false", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const ghost = yield* newPayment(merchant, { stateVersion: 2 })
      assert.isFalse(yield* repo.update(ghost, [yield* eventFor(ghost, "payment.processing")]))
    }))

  it.effect("events commit with the change or not at all: a failing event rolls the change back", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const v1 = yield* newPayment(merchant)
      const created = yield* eventFor(v1, "payment.created")
      yield* repo.insert(v1, [created])

      // The second event reuses the first one's id: the insert of the events fails mid-transaction.
      const v2 = new Payment({ ...v1, status: "processing", stateVersion: 2 })
      const processing = yield* eventFor(v2, "payment.processing")
      const exit = yield* Effect.exit(repo.update(v2, [processing, created]))
      assert.isTrue(Exit.hasDies(exit), "an infrastructure failure is a defect")
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(v1.id)), v1)
      assert.deepStrictEqual((yield* storedEvents(v1.id)).map((e) => e.id), [created.id])

      // Same for an insert: the payment is not stored when its event cannot be.
      const other = yield* newPayment(merchant)
      const insertExit = yield* Effect.exit(repo.insert(other, [yield* eventFor(other, "payment.created"), created]))
      assert.isTrue(Exit.hasDies(insertExit))
      assert.isTrue(Option.isNone(yield* repo.findById(other.id)))
      assert.deepStrictEqual(yield* storedEvents(other.id), [])
    }))

  it.effect("an insert inside completingWrite stores the claimed key's response with the payment, or neither; a lost lease writes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const keys = yield* IdempotencyStore
      const merchant = yield* newMerchant(yield* newPartner())
      const t0 = Date.now()
      const claim = (key: string, now = t0) => keys.claim({ partnerId: merchant.partnerId, route: "POST /v1/payments", key }, "hash", now)

      const first = leaseOf(yield* claim("k-1"))
      const payment = yield* newPayment(merchant)
      const created = yield* eventFor(payment, "payment.created")
      assert.strictEqual(yield* insertAnswering(first, payment, [created], `{"id":"${payment.id}"}`), "committed")
      assert.deepStrictEqual(yield* claim("k-1"), { _tag: "Replay", response: { status: 201, body: `{"id":"${payment.id}"}` } })
      assert.deepStrictEqual((yield* storedEvents(payment.id)).map((e) => e.id), [created.id])

      // The payment's event fails (a reused id): no payment, and the key stays in flight, unanswered.
      const second = leaseOf(yield* claim("k-2"))
      const other = yield* newPayment(merchant)
      assert.isTrue(Exit.hasDies(yield* Effect.exit(insertAnswering(second, other, [created], "{}"))))
      assert.isTrue(Option.isNone(yield* repo.findById(other.id)))
      assert.deepStrictEqual(yield* claim("k-2"), { _tag: "Conflict", reason: "in_flight" })

      // A holder that outlived its lease: a retry took the key over, so its insert writes nothing at all.
      const late = leaseOf(yield* claim("k-3"))
      const retry = leaseOf(yield* claim("k-3", t0 + SqlIdempotencyStore.defaultLeaseMillis))
      const lost = yield* newPayment(merchant)
      const lostEvent = yield* eventFor(lost, "payment.created")
      assert.strictEqual(yield* insertAnswering(late, lost, [lostEvent], "{}"), "leaseLost")
      assert.isTrue(Option.isNone(yield* repo.findById(lost.id)))
      assert.deepStrictEqual(yield* storedEvents(lost.id), [])
      // The retry's insert commits and its response replays.
      const won = yield* newPayment(merchant)
      assert.strictEqual(yield* insertAnswering(retry, won, [yield* eventFor(won, "payment.created")], `{"id":"${won.id}"}`), "committed")
      assert.deepStrictEqual(yield* claim("k-3", t0 + SqlIdempotencyStore.defaultLeaseMillis + 1), {
        _tag: "Replay",
        response: { status: 201, body: `{"id":"${won.id}"}` }
      })
    }))

  it.effect("inserts started together commit in one statement, each payment with its events and its answer", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const keys = yield* IdempotencyStore
      const merchant = yield* newMerchant(yield* newPartner())
      const lease = leaseOf(yield* keys.claim({ partnerId: merchant.partnerId, route: "POST /v1/payments", key: "group-1" }, "hash", Date.now()))
      const payments = [yield* newPayment(merchant), yield* newPayment(merchant), yield* newPayment(merchant)]
      const events = yield* Effect.forEach(payments, (payment) => eventFor(payment, "payment.created"))
      const [, inserts] = yield* loggingStatements(
        "INSERT INTO payments",
        Effect.all(
          payments.map((payment, i) =>
            i === 1 ? insertAnswering(lease, payment, [events[i]!], `{"id":"${payment.id}"}`) : repo.insert(payment, [events[i]!])
          ),
          { concurrency: "unbounded" }
        )
      )
      assert.strictEqual(inserts.length, 1)
      for (const [i, payment] of payments.entries()) {
        assert.strictEqual(paymentJson(Option.getOrThrow(yield* repo.findById(payment.id))), paymentJson(payment))
        assert.deepStrictEqual((yield* storedEvents(payment.id)).map((e) => e.id), [events[i]!.id])
      }
      assert.deepStrictEqual(
        yield* keys.claim({ partnerId: merchant.partnerId, route: "POST /v1/payments", key: "group-1" }, "hash", Date.now()),
        { _tag: "Replay", response: { status: 201, body: `{"id":"${payments[1]!.id}"}` } }
      )
    }))

  it.effect("a group whose statement fails writes nothing: each insert runs again alone, and only the failing one fails", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const keys = yield* IdempotencyStore
      const merchant = yield* newMerchant(yield* newPartner())
      const t0 = Date.now()
      const claim = (key: string, now: number) => Effect.map(keys.claim({ partnerId: merchant.partnerId, route: "POST /v1/payments", key }, "hash", now), leaseOf)
      const held = yield* claim("group-held", t0)
      const late = yield* claim("group-lost", t0)
      yield* claim("group-lost", t0 + SqlIdempotencyStore.defaultLeaseMillis) // a retry takes the key over
      const [kept, lost, plain, duplicate] = [
        yield* newPayment(merchant),
        yield* newPayment(merchant),
        yield* newPayment(merchant),
        yield* newPayment(merchant)
      ]
      const reused = yield* eventFor(kept, "payment.created")
      const [exits, inserts] = yield* loggingStatements(
        "INSERT INTO payments",
        Effect.all(
          [
            insertAnswering(held, kept, [reused], "{}"),
            insertAnswering(late, lost, [], "{}"),
            repo.insert(plain, []),
            repo.insert(duplicate, [reused]) // the same event id as `kept`'s: a unique violation
          ].map(Effect.exit),
          { concurrency: "unbounded" }
        )
      )
      assert.strictEqual(inserts.length, 5) // the group's, then each alone
      assert.deepStrictEqual(exits.slice(0, 2).map((exit) => Exit.isSuccess(exit) ? String(exit.value) : "failed"), ["committed", "leaseLost"])
      assert.isTrue(Exit.isSuccess(exits[2]!))
      assert.isTrue(Exit.hasDies(exits[3]!))
      assert.deepStrictEqual(
        yield* Effect.forEach([kept, lost, plain, duplicate], (payment) => Effect.map(repo.findById(payment.id), Option.isSome)),
        [true, false, true, false]
      )
    }))

  it.effect("lists with every filter", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const partner = yield* newPartner()
      const shopA = yield* newMerchant(partner)
      const shopB = yield* newMerchant(partner)
      const liveShop = yield* newMerchant(partner, { mode: "live" })
      const strangerShop = yield* newMerchant(yield* newPartner())
      const make = (merchant: typeof shopA, createdAt: number, fields: Partial<ConstructorParameters<typeof Payment>[0]> = {}) =>
        Effect.gen(function*() {
          const p = yield* newPayment(merchant, { createdAt, updatedAt: createdAt, ...fields })
          yield* repo.insert(p, [])
          return p
        })
      const a1 = yield* make(shopA, 1000, { referenceId: "r-1" })
      const a2 = yield* make(shopA, 2000, { status: "succeeded", stateVersion: 3, referenceId: "r-2" })
      const b1 = yield* make(shopB, 3000, { status: "expired", stateVersion: 2, referenceId: "r-1" })
      yield* make(liveShop, 1500)
      yield* make(strangerShop, 1500)

      const base: PaymentQuery = { partnerId: partner.id, mode: "sandbox", order: "desc", after: null, limit: 10 }
      const ids = (query: Partial<PaymentQuery>) => repo.list({ ...base, ...query }).pipe(Effect.map((ps) => ps.map((p) => p.id)))
      assert.deepStrictEqual(yield* ids({}), [b1.id, a2.id, a1.id])
      assert.deepStrictEqual(yield* ids({ order: "asc" }), [a1.id, a2.id, b1.id])
      assert.deepStrictEqual(yield* ids({ merchantId: shopA.id }), [a2.id, a1.id])
      assert.deepStrictEqual(yield* ids({ statuses: ["succeeded", "expired"] }), [b1.id, a2.id])
      assert.deepStrictEqual(yield* ids({ statuses: [] }), [b1.id, a2.id, a1.id])
      assert.deepStrictEqual(yield* ids({ referenceId: "r-1" }), [b1.id, a1.id])
      assert.deepStrictEqual(yield* ids({ createdFrom: 2000 }), [b1.id, a2.id])
      assert.deepStrictEqual(yield* ids({ createdBefore: 2000 }), [a1.id])
      assert.deepStrictEqual(yield* ids({ createdFrom: 1000, createdBefore: 3000, merchantId: shopA.id, statuses: ["requires_action"] }), [a1.id])
      assert.deepStrictEqual(yield* ids({ limit: 2 }), [b1.id, a2.id])
      assert.deepStrictEqual(yield* ids({ mode: "live" }).pipe(Effect.map((found) => found.length)), 1)
    }))

  it.effect("pages by cursor in both orders, ties on createdAt broken by id", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const stamps = [5000, 1000, 3000, 1000, 3000, 1000, 2000, 4000, 3000]
      const all: Array<Payment> = []
      for (const createdAt of stamps) {
        const p = yield* newPayment(merchant, { createdAt, updatedAt: createdAt })
        yield* repo.insert(p, [])
        all.push(p)
      }
      for (const order of ["asc", "desc"] as const) {
        const expected = [...all].sort((a, b) => (order === "asc" ? compareCreation(a, b) : compareCreation(b, a))).map((p) => p.id)
        const seen: Array<string> = []
        let after: Cursor | null = null
        for (let page = 0; page < 10; page++) {
          const rows: ReadonlyArray<Payment> = yield* repo.list({ partnerId: merchant.partnerId, mode: merchant.mode, order, after, limit: 2 })
          if (rows.length === 0) break
          seen.push(...rows.map((p) => p.id))
          const last = rows[rows.length - 1]!
          after = { createdAt: last.createdAt, id: last.id }
        }
        assert.deepStrictEqual(seen, expected, order)
      }
    }))
})
