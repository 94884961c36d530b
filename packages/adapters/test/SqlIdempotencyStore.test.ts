import { SqlIdempotencyStore } from "@paygate/adapters"
import { type IdempotencyScope, IdempotencyStore } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { adapterSuite } from "./support/AdapterSuite.ts"

const day = SqlIdempotencyStore.retentionMillis
const t0 = 1_700_000_000_000
const scope = (overrides: Partial<IdempotencyScope> = {}): IdempotencyScope => ({
  partnerId: "ptn_IDEMPOTENCY",
  route: "POST /v1/payments",
  key: randomUUID(),
  ...overrides
})

adapterSuite("SqlIdempotencyStore", (it) => {
  it.effect("claims once, reports in-flight and different-body conflicts, then replays the stored response", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      assert.deepStrictEqual(yield* store.claim(s, "hash-a", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(s, "hash-a", t0 + 1), { _tag: "Conflict", reason: "in_flight" })
      assert.deepStrictEqual(yield* store.claim(s, "hash-b", t0 + 1), { _tag: "Conflict", reason: "different_body" })
      const body = "{\"id\":\"pay_1\",\"note\":\"ünïcode ✓\"}"
      yield* store.complete(s, { status: 201, body })
      assert.deepStrictEqual(yield* store.claim(s, "hash-a", t0 + 2), { _tag: "Replay", response: { status: 201, body } })
      assert.deepStrictEqual(yield* store.claim(s, "hash-b", t0 + 2), { _tag: "Conflict", reason: "different_body" })
      // A 4xx is a completed response too.
      const s4 = scope()
      yield* store.claim(s4, "h", t0)
      yield* store.complete(s4, { status: 409, body: "{\"code\":\"merchant_exists\"}" })
      assert.deepStrictEqual(yield* store.claim(s4, "h", t0), { _tag: "Replay", response: { status: 409, body: "{\"code\":\"merchant_exists\"}" } })
    }))

  it.effect("keys are scoped by partner and route", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      assert.deepStrictEqual(yield* store.claim(s, "h", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim({ ...s, partnerId: "ptn_OTHER" }, "h", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim({ ...s, route: "POST /v1/refunds" }, "h", t0), { _tag: "Claimed" })
    }))

  it.effect("release frees an in-flight key; a 5xx completion is never stored; completed keys are not released", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const s = scope()
      yield* store.claim(s, "h", t0)
      yield* store.release(s)
      assert.deepStrictEqual(yield* store.claim(s, "other-body", t0), { _tag: "Claimed" })
      yield* store.complete(s, { status: 503, body: "{\"code\":\"internal_error\"}" })
      assert.deepStrictEqual(yield* store.claim(s, "h", t0), { _tag: "Claimed" })
      yield* store.complete(s, { status: 200, body: "ok" })
      yield* store.release(s)
      assert.deepStrictEqual(yield* store.claim(s, "h", t0), { _tag: "Replay", response: { status: 200, body: "ok" } })
    }))

  it.effect("a key lives 24 hours from its claim, then is replaced", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const done = scope()
      yield* store.claim(done, "h", t0)
      yield* store.complete(done, { status: 200, body: "first" })
      assert.deepStrictEqual(yield* store.claim(done, "h", t0 + day - 1), { _tag: "Replay", response: { status: 200, body: "first" } })
      assert.deepStrictEqual(yield* store.claim(done, "new-body", t0 + day), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(done, "new-body", t0 + day), { _tag: "Conflict", reason: "in_flight" })
      // An abandoned in-flight key expires as well.
      const stuck = scope()
      yield* store.claim(stuck, "h", t0)
      assert.deepStrictEqual(yield* store.claim(stuck, "h", t0 + day - 1), { _tag: "Conflict", reason: "in_flight" })
      assert.deepStrictEqual(yield* store.claim(stuck, "h", t0 + day), { _tag: "Claimed" })
    }))

  it.effect("of concurrent first claims exactly one wins", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      for (let round = 0; round < 5; round++) {
        const s = scope()
        const claims = yield* Effect.all(Array.from({ length: 6 }, () => store.claim(s, "h", t0)), { concurrency: "unbounded" })
        assert.strictEqual(claims.filter((c) => c._tag === "Claimed").length, 1)
        assert.strictEqual(claims.filter((c) => c._tag === "Conflict" && c.reason === "in_flight").length, 5)
      }
    }))
})
