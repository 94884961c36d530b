import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { runInNewContext } from "node:vm"
import { setFlagsFromString } from "node:v8"
import { RateLimiter } from "../src/server/RateLimiter.ts"
import type { RateLimitSettings } from "../src/settings/ServerSettings.ts"

const limiter = (settings: RateLimitSettings) =>
  Effect.map(Layer.build(RateLimiter.make(settings)), Context.get(RateLimiter)).pipe(Effect.scoped)

describe("RateLimiter", () => {
  it.effect("allows the burst, then answers the seconds to wait until a token is back", () =>
    Effect.gen(function*() {
      const rate = yield* limiter({ perSecond: 2, burst: 3 })
      for (let i = 0; i < 3; i++) assert.strictEqual(yield* rate.take("k"), undefined)
      assert.strictEqual(yield* rate.take("k"), 1)
      assert.strictEqual(yield* rate.take("other"), undefined, "each key has its own bucket")
      yield* TestClock.adjust(500)
      assert.strictEqual(yield* rate.take("k"), undefined)
      assert.strictEqual(yield* rate.take("k"), 1)
    }))

  it.effect("drops buckets that have refilled: one caller per key at a time keeps a handful, not one per key ever seen", () =>
    Effect.gen(function*() {
      // A bucket of burst 100 at 50/s is full again 2 s after its last use.
      const rate = yield* limiter({ perSecond: 50, burst: 100 })
      for (let i = 0; i < 100_000; i++) {
        yield* rate.take(`caller-${i}`)
        yield* TestClock.adjust(100)
      }
      // 2 s hold 20 callers; each new bucket tidies two places, so the refilled ones do not pile up.
      assert.isAtMost(yield* rate.size, 40)
    }))

  it.effect("holds at most maxBuckets under 100k distinct keys at once, and the heap stays flat", () =>
    Effect.gen(function*() {
      setFlagsFromString("--expose-gc")
      const gc = runInNewContext("gc") as () => void
      const rate = yield* limiter({ perSecond: 50, burst: 100, maxBuckets: 1_000 })
      const wide = "k".repeat(200)
      const heap = () => {
        gc()
        return process.memoryUsage().heapUsed
      }
      for (let i = 0; i < 1_000; i++) yield* rate.take(`${wide}-${i}`)
      const before = heap()
      let most = 0
      for (let i = 1_000; i < 100_000; i++) {
        yield* rate.take(`${wide}-${i}`)
        if (i % 1_000 === 0) most = Math.max(most, yield* rate.size)
      }
      most = Math.max(most, yield* rate.size)
      const grown = heap() - before
      assert.strictEqual(most, 1_000)
      // 99,000 more keys of ~210 bytes would be ~20 MB if kept.
      assert.isBelow(grown, 4 * 1024 * 1024, `heap grew by ${grown} bytes`)
    }))

  it.effect("a key in use survives the tidying: its spent burst is not handed back while others come and go", () =>
    Effect.gen(function*() {
      const rate = yield* limiter({ perSecond: 1, burst: 2, maxBuckets: 10 })
      assert.strictEqual(yield* rate.take("busy"), undefined)
      assert.strictEqual(yield* rate.take("busy"), undefined)
      for (let i = 0; i < 5; i++) yield* rate.take(`passer-${i}`)
      assert.strictEqual(yield* rate.take("busy"), 1)
    }))
})
