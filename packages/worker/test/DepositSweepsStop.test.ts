import { DepositStore, DepositSweep, DepositSweeps, type PaymentId } from "@paygate/domain"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { defaultPayoutSettings, depositSweeper, PayoutSettings } from "../src/index.ts"

// As the leased-work jobs: a stopped sweep job hands back every deposit it leased, even when the
// stop lands while the claim's statement runs.
describe("the deposit sweep job on a stop", () => {
  it.live("while the claim's statement runs: the deposits the database leased are handed back", () =>
    Effect.gen(function*() {
      const held = new Set<string>()
      const answering = yield* Deferred.make<void>()
      const deposit = (address: string) =>
        new DepositSweep({
          chainId: "eip155:31337",
          address,
          asset: "eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3",
          paymentId: "pay_01M8TS6GPRFK71Y6GQFCR7ED3X" as PaymentId,
          markedVersion: 1,
          sweptVersion: 0,
          transfer: null,
          txVersion: null,
          attempts: 0
        })
      const unused = () => Effect.die("not used by the sweep job")
      const store = DepositStore.of({
        ensure: unused,
        watched: unused,
        markDue: unused,
        claim: () =>
          Effect.gen(function*() {
            // The database has leased them; its answer is on the way.
            const deposits = [deposit("0x01"), deposit("0x02")]
            for (const d of deposits) held.add(d.address)
            yield* Deferred.succeed(answering, undefined)
            yield* Effect.sleep("50 millis")
            return deposits
          }),
        recordSweep: unused,
        swept: unused,
        nothingLeft: unused,
        abandon: unused,
        release: (key) => Effect.sync(() => void held.delete(key.address))
      })
      const fiber = yield* Effect.forkChild(depositSweeper.pipe(
        Effect.provide(Layer.mergeAll(
          Layer.succeed(PayoutSettings, { ...defaultPayoutSettings, pollIntervalMs: 10 }),
          Layer.succeed(DepositStore, store),
          Layer.succeed(DepositSweeps, DepositSweeps.of({ advance: () => Effect.never }))
        ))
      ))
      yield* Deferred.await(answering)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual([...held], [])
    }))
})
