/**
 * The deposit sweep job: leases deposits whose sweep is due (`FOR UPDATE SKIP
 * LOCKED`, so any number of workers share them) and advances them together through
 * `DepositSweeps` — follow recorded sweeps, sweep the rest in batches, one transaction of the
 * executor per token and batch — then releases each with its next check: right away once swept
 * (a transfer noticed since keeps it due), after `pendingRecheckMs` while a sweep is on its way,
 * after `unknownRecheckMs` when the chain could not be asked, after `retryMs` after a failed
 * sweep. Tuned like the payouts (`PayoutSettings`). A killed worker's deposits come back when
 * their lease ends; what it recorded is followed, never signed again. The chain side is the
 * domain's `DepositSweeper` port under `DepositSweeps` (the composition root's `Application.workerServices`).
 *
 * @module
 */
import { DepositChains, DepositStore, DepositSweeps, maxSweepBatch } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { forever } from "./Forever.ts"
import { PayoutSettings } from "./Payouts.ts"

/** The sweep loop; see the module documentation. */
export const depositSweeper: Effect.Effect<never, never, PayoutSettings | DepositStore | DepositSweeps> = Effect.gen(function*() {
  const settings = yield* PayoutSettings
  const store = yield* DepositStore
  const sweeps = yield* DepositSweeps
  // The claim is uninterruptible (a stop while its statement runs would lose deposits the database
  // has leased already); only the sweep itself is interrupted.
  const round = Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const claimed = yield* store.claim(maxSweepBatch, settings.leaseMs)
      if (claimed.length === 0) return false
      const steps = yield* restore(sweeps.advance(claimed)).pipe(
        // Stopping: hand the deposits back at once instead of holding them for the rest of the lease.
        Effect.onInterrupt(() => Effect.forEach(claimed, (s) => store.release(s, 0), { discard: true }))
      )
      yield* Effect.forEach(steps, ([s, step]) =>
        store.release(s, step === "final" ? 0 : step === "pending" ? settings.pendingRecheckMs : step === "unknown" ? settings.unknownRecheckMs : settings.retryMs), {
        discard: true
      })
      return true
    })
  )
  return yield* forever("deposit sweeps", round, settings.pollIntervalMs)
})

/** The sweep job over the domain's `DepositSweeps` (the host builds it over its `DepositSweeper`; tests wrap that to play a crash). */
export const depositSweepJob: Layer.Layer<never, never, PayoutSettings | DepositStore | DepositSweeps> = Layer.effectDiscard(
  Effect.forkScoped(depositSweeper).pipe(Effect.andThen(Effect.logInfo("worker started: deposit sweeps")))
)

/** The sweep job when a configured chain has a deposit factory (nothing to do without one). */
export const DepositSweepJob: Layer.Layer<never, never, DepositChains | PayoutSettings | DepositStore | DepositSweeps> = Layer.unwrap(
  Effect.map(DepositChains, (chains) => (chains.swept.length > 0 ? depositSweepJob : Layer.empty))
)
