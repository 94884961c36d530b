import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type IdempotencyScope, IdempotencyStore } from "../../src/ports/IdempotencyStore.ts"
import { idempotencyTtlMillis, layerMemoryIdempotency } from "../../src/testing/MemoryIdempotencyStore.ts"

const scope: IdempotencyScope = { partnerId: "ptn_one", route: "POST /v1/merchants", key: "key-1" }
const created = { status: 201, body: "{\"id\":\"mer_1\"}" }
const t0 = 1_800_000_000_000

const claim = (s: IdempotencyScope, hash: string, now: number) => IdempotencyStore.use((store) => store.claim(s, hash, now))
const complete = (s: IdempotencyScope, response: { status: number; body: string }) =>
  IdempotencyStore.use((store) => store.complete(s, response))
const release = (s: IdempotencyScope) => IdempotencyStore.use((store) => store.release(s))

describe("layerMemoryIdempotency", () => {
  it.effect("claims once, then conflicts while in flight and replays once complete", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* claim(scope, "h1", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + 1), { _tag: "Conflict", reason: "in_flight" })
      assert.deepStrictEqual(yield* claim(scope, "h2", t0 + 1), { _tag: "Conflict", reason: "different_body" })
      yield* complete(scope, created)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0 + 2), { _tag: "Replay", response: created })
      assert.deepStrictEqual(yield* claim(scope, "h2", t0 + 2), { _tag: "Conflict", reason: "different_body" })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("forgets a key after 24 hours", () =>
    Effect.gen(function*() {
      yield* claim(scope, "h1", t0)
      yield* complete(scope, created)
      assert.strictEqual((yield* claim(scope, "h2", t0 + idempotencyTtlMillis - 1))._tag, "Conflict")
      assert.deepStrictEqual(yield* claim(scope, "h2", t0 + idempotencyTtlMillis), { _tag: "Claimed" })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("frees a released key and never stores a 5xx response", () =>
    Effect.gen(function*() {
      yield* claim(scope, "h1", t0)
      yield* release(scope)
      assert.deepStrictEqual(yield* claim(scope, "h2", t0), { _tag: "Claimed" })
      yield* complete(scope, { status: 503, body: "{}" })
      assert.deepStrictEqual(yield* claim(scope, "h1", t0), { _tag: "Claimed" })
      yield* complete(scope, { status: 409, body: "{}" })
      yield* release(scope)
      assert.deepStrictEqual(yield* claim(scope, "h1", t0), { _tag: "Replay", response: { status: 409, body: "{}" } })
    }).pipe(Effect.provide(layerMemoryIdempotency())))

  it.effect("scopes keys by partner and route", () =>
    Effect.gen(function*() {
      yield* claim(scope, "h1", t0)
      assert.deepStrictEqual(yield* claim({ ...scope, partnerId: "ptn_two" }, "h1", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* claim({ ...scope, route: "POST /v1/payments" }, "h1", t0), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* claim({ ...scope, key: "key-2" }, "h1", t0), { _tag: "Claimed" })
    }).pipe(Effect.provide(layerMemoryIdempotency())))
})
