import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import * as TtlCache from "../../src/internal/TtlCache.ts"

// A lookup that counts its reads and answers `value` (absent when `undefined`).
const counting = <V>(value: () => V | undefined) => {
  let reads = 0
  return {
    reads: () => reads,
    lookup: () => Effect.sync(() => {
      reads++
      return Option.fromNullishOr(value())
    })
  }
}

describe("TtlCache", () => {
  it.effect("answers from the cache for the TTL, then reads again", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, number>({ ttlMillis: 10_000, maxEntries: 10 })
      let value = 1
      const source = counting(() => value)
      assert.deepStrictEqual(yield* TtlCache.through(cache, "a", source.lookup), Option.some(1))
      value = 2
      yield* TestClock.adjust(9_999)
      assert.deepStrictEqual(yield* TtlCache.through(cache, "a", source.lookup), Option.some(1))
      assert.strictEqual(source.reads(), 1)
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* TtlCache.through(cache, "a", source.lookup), Option.some(2))
      assert.strictEqual(source.reads(), 2)
    }))

  it.effect("does not remember absent values", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, number>({ ttlMillis: 10_000, maxEntries: 10 })
      let value: number | undefined = undefined
      const source = counting(() => value)
      assert.isTrue(Option.isNone(yield* TtlCache.through(cache, "a", source.lookup)))
      value = 7
      assert.deepStrictEqual(yield* TtlCache.through(cache, "a", source.lookup), Option.some(7))
      assert.strictEqual(source.reads(), 2)
    }))

  it.effect("keeps at most maxEntries, dropping the least recently used", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, string>({ ttlMillis: 10_000, maxEntries: 2 })
      const source = counting(() => "v")
      for (const key of ["a", "b"]) yield* TtlCache.through(cache, key, source.lookup)
      yield* TtlCache.through(cache, "a", source.lookup) // a is now the most recently used
      yield* TtlCache.through(cache, "c", source.lookup) // evicts b
      assert.strictEqual(cache.size(), 2)
      assert.strictEqual(source.reads(), 3)
      yield* TtlCache.through(cache, "a", source.lookup)
      yield* TtlCache.through(cache, "c", source.lookup)
      assert.strictEqual(source.reads(), 3, "a and c were kept")
      yield* TtlCache.through(cache, "b", source.lookup)
      assert.strictEqual(source.reads(), 4, "b was read again")
      assert.strictEqual(cache.size(), 2)
    }))

  it.effect("when every entry was used since it was set, the oldest goes and the new one stays", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, string>({ ttlMillis: 10_000, maxEntries: 2 })
      const source = counting(() => "v")
      for (const key of ["a", "b", "a", "b", "c"]) yield* TtlCache.through(cache, key, source.lookup)
      assert.strictEqual(source.reads(), 3)
      for (const key of ["c", "b"]) yield* TtlCache.through(cache, key, source.lookup)
      assert.strictEqual(source.reads(), 3, "c and b were kept")
      yield* TtlCache.through(cache, "a", source.lookup)
      assert.strictEqual(source.reads(), 4, "a, used least recently, was dropped")
      assert.strictEqual(cache.size(), 2)
    }))

  it.effect("invalidate drops matching entries, and a read in flight during it keeps nothing", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, string>({ ttlMillis: 10_000, maxEntries: 10 })
      const source = counting(() => "v")
      for (const key of ["a", "b"]) yield* TtlCache.through(cache, key, source.lookup)
      cache.invalidate((key) => key === "a")
      assert.strictEqual(cache.size(), 1)
      // The read of "c" began before an invalidation and ends after it: what it read may be stale.
      const racing = () => Effect.sync(() => {
        cache.invalidate((key) => key === "nothing")
        return Option.some("stale")
      })
      assert.deepStrictEqual(yield* TtlCache.through(cache, "c", racing), Option.some("stale"))
      assert.strictEqual(cache.get("c", 0), undefined)
      cache.invalidate()
      assert.strictEqual(cache.size(), 0)
    }))

  it.effect("a TTL of 0 keeps nothing", () =>
    Effect.gen(function*() {
      const cache = TtlCache.make<string, string>({ ttlMillis: 0, maxEntries: 10 })
      const source = counting(() => "v")
      yield* TtlCache.through(cache, "a", source.lookup)
      yield* TtlCache.through(cache, "a", source.lookup)
      assert.strictEqual(source.reads(), 2)
      assert.strictEqual(cache.size(), 0)
    }))
})
