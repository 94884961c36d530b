/**
 * The executor job (contract §6): claims `processing` payments whose chain work is due (leases on
 * the payments, `FOR UPDATE SKIP LOCKED`, so any number of workers share them) and advances each
 * through `Executions` — submit the signed authorization once, then watch the transaction until
 * the chain's required confirmations decide `succeeded` or `failed`. A payment still on its way
 * is checked again after `pendingRecheckMs`; one whose chain could not be asked (RPC down) after
 * `unknownRecheckMs`, and stays `processing` meanwhile. Transactions of one executor account are
 * sent with one nonce sequence (the chain adapter serializes them).
 *
 * @module
 */
import { ChainWork, Executions, type ExecutionStep, type PaymentId } from "@paygate/domain"
import { Cause, Config, Context, Effect, Layer } from "effect"
import { forever } from "./Forever.ts"

/** Tunables of the executor. */
export interface ExecutorSettingsShape {
  /** Pause when no chain work is due. */
  readonly pollIntervalMs: number
  /** Payments claimed per round. */
  readonly batch: number
  /** Payments advanced at once (their chain calls overlap; sends still queue per executor account). */
  readonly concurrency: number
  /** Lease on a claimed payment: longer than a submission with its retries can take. */
  readonly leaseMs: number
  /** Next check of a payment whose transaction is not final yet. */
  readonly pendingRecheckMs: number
  /** Next check after the chain could not be asked. */
  readonly unknownRecheckMs: number
}

/** The defaults: checks every 500 ms, pending transactions every second, after an RPC failure every 5 s. */
export const defaultExecutorSettings: ExecutorSettingsShape = {
  pollIntervalMs: 500,
  batch: 50,
  concurrency: 16,
  leaseMs: 120_000,
  pendingRecheckMs: 1_000,
  unknownRecheckMs: 5_000
}

/** Executor tunables. */
export const ExecutorSettings = Context.Reference<ExecutorSettingsShape>("@paygate/worker/ExecutorSettings", {
  defaultValue: () => defaultExecutorSettings
})

/** `ExecutorSettings` from `EXECUTOR_POLL_MS`, `EXECUTOR_PENDING_RECHECK_MS`, `EXECUTOR_UNKNOWN_RECHECK_MS`. */
export const executorSettingsLayer = Layer.effect(
  ExecutorSettings,
  Effect.gen(function*() {
    const int = (name: string, fallback: number) => Config.Int(name).pipe(Config.withDefault(fallback))
    const d = defaultExecutorSettings
    return {
      ...d,
      pollIntervalMs: Math.max(1, yield* int("EXECUTOR_POLL_MS", d.pollIntervalMs)),
      pendingRecheckMs: Math.max(1, yield* int("EXECUTOR_PENDING_RECHECK_MS", d.pendingRecheckMs)),
      unknownRecheckMs: Math.max(1, yield* int("EXECUTOR_UNKNOWN_RECHECK_MS", d.unknownRecheckMs))
    }
  })
)

/** The executor loop; see the module documentation. */
export const executor: Effect.Effect<never, never, ChainWork | Executions> = Effect.gen(function*() {
  const settings = yield* ExecutorSettings
  const work = yield* ChainWork
  const executions = yield* Executions

  const recheckAfter = (step: Exclude<ExecutionStep, "final">) =>
    step === "pending" ? settings.pendingRecheckMs : settings.unknownRecheckMs

  const advanceOne = (id: PaymentId) =>
    executions.advance(id).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(Effect.logError(`worker executor: advancing ${id} failed`, cause), "unknown" as const)
      ),
      Effect.flatMap((step) => (step === "final" ? Effect.void : work.release(id, recheckAfter(step)))),
      // Stopping: hand the payment back at once instead of holding it for the rest of the lease.
      Effect.onInterrupt(() => work.release(id, 0))
    )

  const round = Effect.gen(function*() {
    const ids = yield* work.claim(settings.batch, settings.leaseMs)
    if (ids.length === 0) return false
    yield* Effect.forEach(ids, advanceOne, { concurrency: settings.concurrency, discard: true })
    return true
  })
  return yield* forever("executor", round, settings.pollIntervalMs)
})

/** The executor, forked into the layer's scope. */
export const ExecutorJob: Layer.Layer<never, never, ChainWork | Executions> = Layer.effectDiscard(
  Effect.forkScoped(executor).pipe(Effect.andThen(Effect.logInfo("worker started: executor")))
)
