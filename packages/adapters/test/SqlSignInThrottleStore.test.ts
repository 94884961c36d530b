import { SignInThrottleStore } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { adapterSuite } from "./support/AdapterSuite.ts"

const allowance = (burst: number, perSecond: number) => ({ key: `client-${randomBytes(6).toString("hex")}`, burst, perSecond })

adapterSuite("SqlSignInThrottleStore", (it) => {
  it.effect("takes from every allowance or none, refills with time, and gives back", () =>
    Effect.gen(function*() {
      const store = yield* SignInThrottleStore
      const client = allowance(2, 1)
      const everyone = allowance(3, 1)
      const now = 1_800_000_000_000
      assert.isUndefined(yield* store.take([client, everyone], now))
      assert.isUndefined(yield* store.take([client, everyone], now))
      // The client is spent: nothing is taken from everyone's allowance.
      assert.strictEqual(yield* store.take([client, everyone], now), 1)
      const other = allowance(2, 1)
      assert.isUndefined(yield* store.take([other, everyone], now))
      assert.strictEqual(yield* store.take([allowance(2, 1), everyone], now), 1)
      // A second later each has one more; a give-back returns one.
      assert.isUndefined(yield* store.take([client, everyone], now + 1000))
      yield* store.giveBack([client, everyone])
      assert.isUndefined(yield* store.take([client, everyone], now + 1000))
      assert.strictEqual(yield* store.take([client, everyone], now + 1000), 1)
    }))

  it.effect("never lets concurrent attempts take more than the bucket holds", () =>
    Effect.gen(function*() {
      const store = yield* SignInThrottleStore
      const shared = allowance(10, 0.001)
      const now = 1_800_000_000_000
      const answers = yield* Effect.forEach(Array.from({ length: 30 }), () => store.take([shared], now), { concurrency: "unbounded" })
      assert.strictEqual(answers.filter((answer) => answer === undefined).length, 10)
    }))

  it.effect("forgets buckets that are full again", () =>
    Effect.gen(function*() {
      const store = yield* SignInThrottleStore
      const sql = yield* SqlClient.SqlClient
      const once = allowance(10, 0.2)
      const now = 1_800_000_000_000
      yield* store.take([once], now)
      const count = () => Effect.map(sql`SELECT count(*)::int AS n FROM sign_in_attempts WHERE client = ${once.key}`, (rows) => Number(rows[0]!.n))
      assert.strictEqual(yield* count(), 1)
      // Full again after 5 s; the next attempt of anyone removes it.
      yield* store.take([allowance(1, 1)], now + 6000)
      assert.strictEqual(yield* count(), 0)
    }))
})
