import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { defaultLeasedWorkSettings, leasedWork } from "../src/LeasedWork.ts"

// A stopped job must hand back every item it holds: another worker (or this one, started again)
// would otherwise wait for the rest of the lease, two minutes by default.
describe("leasedWork on a stop", () => {
  const settings = { ...defaultLeasedWorkSettings, pollIntervalMs: 10, batch: 3, concurrency: 1 }

  /** A store of leases: what the claims leased and no release has handed back yet. */
  const leases = () => {
    const held = new Set<number>()
    return { held, release: (key: number) => Effect.sync(() => void held.delete(key)) }
  }

  /** Runs `job` until `ready` is done, then stops it (as a worker's shutdown interrupts its jobs). */
  const stopWhen = (job: Effect.Effect<never>, ready: Deferred.Deferred<void>) =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(job)
      yield* Deferred.await(ready)
      yield* Fiber.interrupt(fiber)
    })

  it.live("while the claim's statement runs: the items the database leased are handed back", () =>
    Effect.gen(function*() {
      const { held, release } = leases()
      const answering = yield* Deferred.make<void>()
      const job = leasedWork<number, "pending">({
        name: "test",
        settings,
        claim: () =>
          Effect.gen(function*() {
            // The database has leased them; its answer is on the way.
            for (const key of [1, 2, 3]) held.add(key)
            yield* Deferred.succeed(answering, undefined)
            yield* Effect.sleep("50 millis")
            return [1, 2, 3]
          }),
        release,
        advance: () => Effect.never,
        recheckAfter: () => 0,
        describe: String
      })
      yield* stopWhen(job, answering)
      assert.deepStrictEqual([...held], [])
    }))

  // One at a time leaves three not begun; three at a time runs items side by side, each its own fiber.
  it.live.each([1, 3])("mid-round, %i at a time: the items under way and those not begun are handed back, a final one is not", (concurrency) =>
    Effect.gen(function*() {
      const { held, release } = leases()
      const releasedFinal: Array<number> = []
      const blocked = yield* Deferred.make<void>()
      let claims = 0
      const job = leasedWork<number, "pending">({
        name: "test",
        settings: { ...settings, concurrency },
        claim: () =>
          Effect.sync(() => {
            if (claims++ > 0) return []
            for (const key of [1, 2, 3, 4]) held.add(key)
            return [1, 2, 3, 4]
          }),
        release: (key) => Effect.andThen(Effect.sync(() => key === 1 && releasedFinal.push(key)), release(key)),
        // The first is done at once (final: its lease is simply over); the others hang on the chain.
        advance: (key) =>
          key === 1
            ? Effect.sync(() => void held.delete(key)).pipe(Effect.as("final" as const))
            : Effect.andThen(Deferred.succeed(blocked, undefined), Effect.never),
        recheckAfter: () => 0,
        describe: String
      })
      yield* stopWhen(job, blocked)
      assert.deepStrictEqual([...held], [])
      assert.deepStrictEqual(releasedFinal, [])
    }))
})
