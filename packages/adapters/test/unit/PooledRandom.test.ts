import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SecureRandom } from "effect/crypto"
import * as PooledRandom from "../../src/PooledRandom.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("PooledRandom", () => {
  it("never hands out the same bytes twice, across pool refills", () => {
    const seen = new Set<string>()
    // 10 bytes at a time: about 2.5 refills of the 4 KiB pool.
    for (let i = 0; i < 1000; i++) {
      const bytes = PooledRandom.randomBytes(10)
      assert.strictEqual(bytes.length, 10)
      seen.add(hex(bytes))
    }
    assert.strictEqual(seen.size, 1000)
  })

  it("returns copies: bytes already handed out stay as they were when the pool refills", () => {
    const kept = PooledRandom.randomBytes(32)
    const before = hex(kept)
    // Past two refills of the 4 KiB pool: a view into it would have been overwritten.
    for (let i = 0; i < 1000; i++) PooledRandom.randomBytes(10)
    assert.strictEqual(hex(kept), before)
  })

  it("serves large draws outside the pool", () => {
    assert.strictEqual(PooledRandom.randomBytes(5000).length, 5000)
  })

  it.effect("is the SecureRandom of its layer", () =>
    Effect.gen(function*() {
      const random = yield* SecureRandom.SecureRandom
      const bytes = yield* random.randomBytes(16)
      assert.strictEqual(bytes.length, 16)
    }).pipe(Effect.provide(PooledRandom.layer)))
})
