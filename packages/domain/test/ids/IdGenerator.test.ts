import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import { MerchantId, PaymentId } from "../../src/ids/Ids.ts"

const generated = /^pay_[0-9A-HJKMNP-TV-Z]{26}$/
const layer = (seed: number) => IdGenerator.layer.pipe(Layer.provide(seededSecureRandom(seed)))

describe("IdGenerator", () => {
  it.effect("makes API rules §8 ids: prefix + 26 Crockford base32 characters", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const id = yield* ids.make("payment")
      assert.match(id, generated)
      assert.match(yield* ids.make("merchant"), /^mer_[0-9A-HJKMNP-TV-Z]{26}$/)
      assert.match(yield* ids.make("event"), /^evt_/)
    }).pipe(Effect.provide(layer(7))))

  it.effect("sorts ids by creation time", () =>
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      yield* TestClock.setTime(1_700_000_000_000)
      const first = yield* ids.make("payment")
      yield* TestClock.adjust(1)
      const second = yield* ids.make("payment")
      yield* TestClock.setTime(2_000_000_000_000)
      const third = yield* ids.make("payment")
      assert.isTrue(first < second && second < third)
    }).pipe(Effect.provide(layer(1))))

  it.effect("is deterministic for a seed and unpredictable across seeds", () =>
    Effect.gen(function*() {
      const make = (seed: number) => IdGenerator.use((ids) => ids.make("payment")).pipe(Effect.provide(layer(seed)))
      assert.strictEqual(yield* make(42), yield* make(42))
      assert.notStrictEqual(yield* make(42), yield* make(43))
      // Same millisecond, 80 fresh random bits each: never sequential.
      const ids = yield* Effect.forEach(Array.from({ length: 50 }), () => make(Math.floor(Math.random() * 2 ** 31) + 1))
      assert.strictEqual(new Set(ids).size, 50)
    }))
})

describe("id schemas", () => {
  it("accept API rules §8's input form only", () => {
    const ok = Schema.is(PaymentId)
    assert.isTrue(ok("pay_a"))
    assert.isTrue(ok(`pay_${"Z".repeat(64)}`))
    for (const bad of ["pay_", "pay_a-b", `pay_${"a".repeat(65)}`, "mer_abc", "PAY_abc", "pay_ü", " pay_a"]) {
      assert.isFalse(ok(bad), bad)
    }
    assert.isTrue(Schema.is(MerchantId)("mer_01HXYZ"))
  })
})
