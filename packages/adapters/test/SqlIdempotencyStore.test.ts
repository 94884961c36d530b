import { SqlIdempotencyStore } from "@paygate/adapters"
import {
  type Completing,
  type IdempotencyClaim,
  type IdempotencyScope,
  IdempotencyStore,
  type Payment,
  PaymentRepository
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor, newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"
import { leaseOf, loggingStatements } from "./support/StatementLog.ts"

const day = SqlIdempotencyStore.retentionMillis
const lease = SqlIdempotencyStore.defaultLeaseMillis
const t0 = 1_700_000_000_000
const scope = (overrides: Partial<IdempotencyScope> = {}): IdempotencyScope => ({
  partnerId: "ptn_IDEMPOTENCY",
  route: "POST /v1/payments",
  key: randomUUID(),
  ...overrides
})

const inFlight: IdempotencyClaim = { _tag: "Conflict", reason: "in_flight" }

adapterSuite("SqlIdempotencyStore", (it) => {
  it.effect("claims once, reports in-flight and different-body conflicts, then replays the stored response", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      const held = leaseOf(yield* store.claim(s, "hash-a", t0))
      assert.deepStrictEqual(held.scope, s)
      assert.deepStrictEqual(yield* store.claim(s, "hash-a", t0 + 1), inFlight)
      assert.deepStrictEqual(yield* store.claim(s, "hash-b", t0 + 1), { _tag: "Conflict", reason: "different_body" })
      const body = "{\"id\":\"pay_1\",\"note\":\"ünïcode ✓\"}"
      assert.strictEqual(yield* store.complete({ lease: held, response: { status: 201, body } }), true)
      assert.deepStrictEqual(yield* store.claim(s, "hash-a", t0 + 2), { _tag: "Replay", response: { status: 201, body } })
      assert.deepStrictEqual(yield* store.claim(s, "hash-b", t0 + 2), { _tag: "Conflict", reason: "different_body" })
      // A 4xx is a completed response too.
      const s4 = scope()
      const held4 = leaseOf(yield* store.claim(s4, "h", t0))
      yield* store.complete({ lease: held4, response: { status: 409, body: "{\"code\":\"merchant_exists\"}" } })
      assert.deepStrictEqual(yield* store.claim(s4, "h", t0), { _tag: "Replay", response: { status: 409, body: "{\"code\":\"merchant_exists\"}" } })
    }))

  it.effect("keys are scoped by partner and route", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      for (const other of [s, { ...s, partnerId: "ptn_OTHER" }, { ...s, route: "POST /v1/refunds" }]) {
        assert.strictEqual((yield* store.claim(other, "h", t0))._tag, "Claimed")
      }
    }))

  it.effect("release frees an in-flight key; a 5xx completion is never stored; completed keys are not released", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      yield* store.release(leaseOf(yield* store.claim(s, "h", t0)))
      const second = leaseOf(yield* store.claim(s, "other-body", t0))
      yield* store.complete({ lease: second, response: { status: 503, body: "{\"code\":\"internal_error\"}" } })
      const third = leaseOf(yield* store.claim(s, "h", t0))
      yield* store.complete({ lease: third, response: { status: 200, body: "ok" } })
      yield* store.release(third)
      assert.deepStrictEqual(yield* store.claim(s, "h", t0), { _tag: "Replay", response: { status: 200, body: "ok" } })
    }))

  it.effect("a key lives 24 hours from its claim, then is replaced", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const done = scope()
      yield* store.complete({ lease: leaseOf(yield* store.claim(done, "h", t0)), response: { status: 200, body: "first" } })
      assert.deepStrictEqual(yield* store.claim(done, "h", t0 + day - 1), { _tag: "Replay", response: { status: 200, body: "first" } })
      leaseOf(yield* store.claim(done, "new-body", t0 + day))
      assert.deepStrictEqual(yield* store.claim(done, "new-body", t0 + day), inFlight)
    }))

  it.effect("an unanswered key is held for the lease only: then a retry takes it over and the first holder is fenced out", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      // The holder crashed (or lost its connection) before answering: nothing releases the key.
      const crashed = leaseOf(yield* store.claim(s, "h", t0))
      assert.deepStrictEqual(yield* store.claim(s, "h", t0 + lease - 1), inFlight)
      assert.deepStrictEqual(yield* store.claim(s, "other", t0 + lease - 1), { _tag: "Conflict", reason: "different_body" })
      const retry = leaseOf(yield* store.claim(s, "h", t0 + lease))
      assert.notStrictEqual(retry.token, crashed.token)
      assert.deepStrictEqual(yield* store.claim(s, "h", t0 + lease + 1), inFlight)
      // The first holder, still running after all, can neither answer nor free the key.
      assert.strictEqual(yield* store.complete({ lease: crashed, response: { status: 201, body: "late" } }), false)
      yield* store.release(crashed)
      assert.deepStrictEqual(yield* store.claim(s, "h", t0 + lease + 1), inFlight)
      assert.strictEqual(yield* store.complete({ lease: retry, response: { status: 201, body: "retry" } }), true)
      assert.deepStrictEqual(yield* store.claim(s, "h", t0 + 2 * lease), { _tag: "Replay", response: { status: 201, body: "retry" } })
      // A completed key is never taken over, however old its lease.
      assert.deepStrictEqual(yield* store.claim(s, "h", t0 + day - 1), { _tag: "Replay", response: { status: 201, body: "retry" } })
    }))

  it.effect("completing: a request's changes commit with its stored answer, or not at all", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE IF NOT EXISTS completing_probe (id text PRIMARY KEY)`
      const change = (id: string) => sql`INSERT INTO completing_probe (id) VALUES (${id})`.pipe(Effect.orDie)
      const changed = (id: string) =>
        Effect.map(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM completing_probe WHERE id = ${id}`.pipe(Effect.orDie), (rows) => rows[0]!.n === 1)

      // Committed: the change and the response, replayed from then on.
      const s1 = scope()
      const done = yield* store.completing(leaseOf(yield* store.claim(s1, "h", t0)),
        Effect.as(change("kept"), { value: "a", keep: { status: 201, body: "{\"id\":\"kept\"}" } }))
      assert.deepStrictEqual(done, { outcome: "committed", value: "a" })
      assert.isTrue(yield* changed("kept"))
      assert.deepStrictEqual(yield* store.claim(s1, "h", t0 + 1), { _tag: "Replay", response: { status: 201, body: "{\"id\":\"kept\"}" } })

      // A 5xx: the change is undone and the key free at once.
      const s2 = scope()
      const failed = yield* store.completing(leaseOf(yield* store.claim(s2, "h", t0)), Effect.as(change("undone"), { value: "b", keep: "undone" as const }))
      assert.strictEqual(failed.outcome, "undone")
      assert.isFalse(yield* changed("undone"))
      assert.strictEqual((yield* store.claim(s2, "h", t0 + 1))._tag, "Claimed")

      // The lease was lost (a retry took the key over): the first holder's change is undone, the retry still holds the key.
      const s3 = scope()
      const first = leaseOf(yield* store.claim(s3, "h", t0))
      const retry = leaseOf(yield* store.claim(s3, "h", t0 + lease))
      const late = yield* store.completing(first, Effect.as(change("late"), { value: "c", keep: { status: 201, body: "late" } }))
      assert.strictEqual(late.outcome, "leaseLost")
      assert.isFalse(yield* changed("late"))
      assert.deepStrictEqual(yield* store.claim(s3, "h", t0 + lease + 1), inFlight)
      yield* store.completing(retry, Effect.as(change("retried"), { value: "d", keep: { status: 201, body: "retry" } }))
      assert.isTrue(yield* changed("retried"))

      // A defect mid-request (as a crash): nothing of it stays.
      const s4 = scope()
      const crashed = yield* Effect.exit(store.completing(leaseOf(yield* store.claim(s4, "h", t0)),
        Effect.andThen(change("crashed"), Effect.die(new Error("the process died here")))))
      assert.isTrue(Exit.isFailure(crashed))
      assert.isFalse(yield* changed("crashed"))

      // A response with nothing to replay: the change stays, the key is freed.
      const s5 = scope()
      const released = yield* store.completing(leaseOf(yield* store.claim(s5, "h", t0)), Effect.as(change("streamed"), { value: "e", keep: "released" as const }))
      assert.strictEqual(released.outcome, "committed")
      assert.isTrue(yield* changed("streamed"))
      assert.strictEqual((yield* store.claim(s5, "h", t0 + 1))._tag, "Claimed")
    }))

  it.effect("completingWrite: the request's payment is written with its response in one statement, or nothing of it is", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const stored = (payment: Payment) => Effect.map(repo.findById(payment.id), Option.isSome)
      const creating = (payment: Payment, keep: Completing<string>["keep"]) =>
        Effect.gen(function*() {
          yield* repo.insert(payment, [yield* eventFor(payment, "payment.created")])
          return { value: payment.id, keep }
        })

      // Committed: the payment and the response, by one statement (no transaction around the request).
      const s1 = scope()
      const kept = yield* newPayment(merchant)
      const [done, statements] = yield* loggingStatements("", store.completingWrite(leaseOf(yield* store.claim(s1, "h", t0)), creating(kept, { status: 201, body: "kept" })))
      assert.deepStrictEqual(done, { outcome: "committed", value: kept.id })
      assert.isTrue(yield* stored(kept))
      const writes = statements.filter((text) => !/^\s*(INSERT INTO idempotency_keys|SELECT)/.test(text))
      assert.lengthOf(writes, 1)
      assert.match(writes[0]!, /INSERT INTO payments[\s\S]*UPDATE idempotency_keys/)
      assert.deepStrictEqual(yield* store.claim(s1, "h", t0 + 1), { _tag: "Replay", response: { status: 201, body: "kept" } })

      // A 5xx, a defect or an error after the insert: nothing written, the key free (a defect's release is the caller's).
      const s2 = scope()
      const undone = yield* newPayment(merchant)
      assert.strictEqual((yield* store.completingWrite(leaseOf(yield* store.claim(s2, "h", t0)), creating(undone, "undone"))).outcome, "undone")
      assert.isFalse(yield* stored(undone))
      assert.strictEqual((yield* store.claim(s2, "h", t0 + 1))._tag, "Claimed")
      const crashed = yield* newPayment(merchant)
      const exit = yield* Effect.exit(store.completingWrite(leaseOf(yield* store.claim(scope(), "h", t0)),
        Effect.andThen(creating(crashed, { status: 201, body: "never" }), Effect.die(new Error("the process died here")))))
      assert.isTrue(Exit.hasDies(exit))
      assert.isFalse(yield* stored(crashed))

      // The lease was lost to a retry: the first holder's payment is not written, the retry's is.
      const s3 = scope()
      const first = leaseOf(yield* store.claim(s3, "h", t0))
      const retry = leaseOf(yield* store.claim(s3, "h", t0 + lease))
      const [late, won] = [yield* newPayment(merchant), yield* newPayment(merchant)]
      assert.strictEqual((yield* store.completingWrite(first, creating(late, { status: 201, body: "late" }))).outcome, "leaseLost")
      assert.isFalse(yield* stored(late))
      assert.strictEqual((yield* store.completingWrite(retry, creating(won, { status: 201, body: "won" }))).outcome, "committed")
      assert.isTrue(yield* stored(won))

      // No write (a refused request): its response is stored alone. Two writes would not commit together: refused.
      const s4 = scope()
      assert.strictEqual((yield* store.completingWrite(leaseOf(yield* store.claim(s4, "h", t0)), Effect.succeed({ value: "x", keep: { status: 400, body: "refused" } }))).outcome, "committed")
      assert.deepStrictEqual(yield* store.claim(s4, "h", t0 + 1), { _tag: "Replay", response: { status: 400, body: "refused" } })
      const [one, two] = [yield* newPayment(merchant), yield* newPayment(merchant)]
      const twice = yield* Effect.exit(store.completingWrite(leaseOf(yield* store.claim(scope(), "h", t0)),
        Effect.andThen(creating(one, "undone"), creating(two, { status: 201, body: "two" }))))
      assert.isTrue(Exit.hasDies(twice))
      assert.isFalse(yield* stored(one))
      assert.isFalse(yield* stored(two))
    }))

  it.effect("of concurrent first claims exactly one wins, and of concurrent take-overs too", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      for (let round = 0; round < 5; round++) {
        const s = scope()
        for (const now of [t0, t0 + lease]) {
          const claims = yield* Effect.all(Array.from({ length: 6 }, () => store.claim(s, "h", now)), { concurrency: "unbounded" })
          assert.strictEqual(claims.filter((c) => c._tag === "Claimed").length, 1)
          assert.strictEqual(claims.filter((c) => c._tag === "Conflict" && c.reason === "in_flight").length, 5)
        }
      }
    }))

  it.effect("claims started together share one INSERT; a key another request holds gets its own answer", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const held = scope()
      leaseOf(yield* store.claim(held, "h", t0))
      const fresh = [scope(), scope(), scope()]
      const [claims, inserts] = yield* loggingStatements(
        "INSERT INTO idempotency_keys",
        Effect.all([...fresh, held].map((s) => store.claim(s, "h", t0 + 1)), { concurrency: "unbounded" })
      )
      assert.deepStrictEqual(claims.slice(0, 3).map((claim) => leaseOf(claim).scope), fresh)
      assert.deepStrictEqual(claims[3], inFlight)
      assert.strictEqual(inserts.length, 2) // the group's, then the held key's alone
      assert.strictEqual(new Set(claims.slice(0, 3).map((claim) => leaseOf(claim).token)).size, 3)
    }))

  it.effect("forgets keys past their 24 hours, oldest first and at most the limit; a live key stays and replays", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const sql = yield* SqlClient.SqlClient
      // Before every other test's keys, so that only these are past their 24 hours at `now`.
      const early = t0 - 10 * day
      const old = [0, 1, 2].map(() => scope({ partnerId: "ptn_PURGE" }))
      for (const [i, s] of old.entries()) {
        yield* store.complete({ lease: leaseOf(yield* store.claim(s, "h", early + i)), response: { status: 200, body: `old-${i}` } })
      }
      const live = scope({ partnerId: "ptn_PURGE" })
      yield* store.complete({ lease: leaseOf(yield* store.claim(live, "h", early + day)), response: { status: 200, body: "live" } })
      const now = early + day + 2
      const kept = () => Effect.map(sql<{ readonly key: string }>`SELECT key FROM idempotency_keys WHERE partner_id = 'ptn_PURGE'`, (rows) => rows.map((r) => r.key).sort())
      assert.strictEqual(yield* store.purgeExpired(now, 2), 2)
      assert.deepStrictEqual(yield* kept(), [old[2]!.key, live.key].sort(), "the oldest two went first")
      assert.strictEqual(yield* store.purgeExpired(now, 2), 1)
      assert.strictEqual(yield* store.purgeExpired(now, 2), 0)
      assert.deepStrictEqual(yield* kept(), [live.key])
      assert.deepStrictEqual(yield* store.claim(live, "h", now), { _tag: "Replay", response: { status: 200, body: "live" } })
      // A forgotten key is a new key to its next request.
      assert.strictEqual((yield* store.claim(old[0]!, "another body", now))._tag, "Claimed")
    }))
})
