import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type IdempotencyClaim, type IdempotencyLease, type IdempotencyScope, IdempotencyStore } from "../../src/ports/IdempotencyStore.ts"
import { idempotencyLeaseMillis, idempotencyTtlMillis, layerMemoryIdempotency } from "../../src/testing/MemoryIdempotencyStore.ts"

const scope: IdempotencyScope = { partnerId: "ptn_one", route: "POST /v1/merchants", key: "key-1" }
const created = { status: 201, body: "{\"id\":\"mer_1\"}" }
const t0 = 1_800_000_000_000

const claim = (s: IdempotencyScope, hash: string, now: number) => IdempotencyStore.use((store) => store.claim(s, hash, now))
const claimed = (s: IdempotencyScope, hash: string, now: number) =>
  claim(s, hash, now).pipe(Effect.map((c: IdempotencyClaim) => {
    assert.strictEqual(c._tag, "Claimed")
    return (c as Extract<IdempotencyClaim, { _tag: "Claimed" }>).lease
  }))
const complete = (lease: IdempotencyLease, response: { status: number; body: string }) =>
  IdempotencyStore.use((store) => store.complete({ lease, response }))
const release = (lease: IdempotencyLease) => IdempotencyStore.use((store) => store.release(lease))
const inFlight: IdempotencyClaim = { _tag: "Conflict", reason: "in_flight" }

describe("layerMemoryIdempotency", () => {
  it.effect("claims once, then conflicts while in flight and replays once complete", () =>
    Effect.gen(function*() {
      const lease = yield* claimed(scope, "h1", t0)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + 1), inFlight)
      assert.deepStrictEqual(yield* claim(scope, "h2", t0 + 1), { _tag: "Conflict", reason: "different_body" })
      assert.isTrue(yield* complete(lease, created))
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + 2), { _tag: "Replay", response: created })
      assert.deepStrictEqual(yield* claim(scope, "h2", t0 + 2), { _tag: "Conflict", reason: "different_body" })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("forgets a key after 24 hours", () =>
    Effect.gen(function*() {
      yield* complete(yield* claimed(scope, "h1", t0), created)
      assert.strictEqual((yield* claim(scope, "h2", t0 + idempotencyTtlMillis - 1))._tag, "Conflict")
      yield* claimed(scope, "h2", t0 + idempotencyTtlMillis)
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("holds an unanswered key for the lease only, then fences its first holder out", () =>
    Effect.gen(function*() {
      const first = yield* claimed(scope, "h1", t0)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + idempotencyLeaseMillis - 1), inFlight)
      const retry = yield* claimed(scope, "h1", t0 + idempotencyLeaseMillis)
      assert.isFalse(yield* complete(first, created))
      yield* release(first)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + idempotencyLeaseMillis + 1), inFlight)
      assert.isTrue(yield* complete(retry, created))
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + 3 * idempotencyLeaseMillis), { _tag: "Replay", response: created })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("frees a released key and never stores a 5xx response", () =>
    Effect.gen(function*() {
      yield* release(yield* claimed(scope, "h1", t0))
      yield* complete(yield* claimed(scope, "h2", t0), { status: 503, body: "{}" })
      const third = yield* claimed(scope, "h1", t0)
      yield* complete(third, { status: 409, body: "{}" })
      yield* release(third)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0), { _tag: "Replay", response: { status: 409, body: "{}" } })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("scopes keys by partner and route", () =>
    Effect.gen(function*() {
      yield* claimed(scope, "h1", t0)
      yield* claimed({ ...scope, partnerId: "ptn_two" }, "h1", t0)
      yield* claimed({ ...scope, route: "POST /v1/payments" }, "h1", t0)
      yield* claimed({ ...scope, key: "key-2" }, "h1", t0)
    }).pipe(Effect.provide(layerMemoryIdempotency())))
})
