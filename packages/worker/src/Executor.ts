/**
 * The executor job (API rules §4): claims `processing` payments whose chain work is due (leases on
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
import { Context, Effect, Layer } from "effect"
import { type ConfiguredLeasedWork, defaultLeasedWorkSettings, leasedWork, leasedWorkSettingsFrom, type LeasedWorkSettings } from "./LeasedWork.ts"

/** Tunables of the executor. */
export type ExecutorSettingsShape = LeasedWorkSettings

/** The defaults: checks every 500 ms, pending transactions every second, after an RPC failure every 5 s. */
export const defaultExecutorSettings: ExecutorSettingsShape = defaultLeasedWorkSettings

/** Executor tunables (the host builds them, e.g. with {@link executorSettingsFrom}). */
export class ExecutorSettings extends Context.Service<ExecutorSettings, ExecutorSettingsShape>()("@paygate/worker/ExecutorSettings") {}

/**
 * The settings with what the operator configured (`EXECUTOR_POLL_MS`, `EXECUTOR_LEASE_MS`,
 * `EXECUTOR_PENDING_RECHECK_MS`, `EXECUTOR_UNKNOWN_RECHECK_MS`), each unset one its default.
 */
export const executorSettingsFrom = (configured: ConfiguredLeasedWork): ExecutorSettingsShape => leasedWorkSettingsFrom(configured)

/** The executor loop; see the module documentation. */
export const executor: Effect.Effect<never, never, ExecutorSettings | ChainWork | Executions> = Effect.gen(function*() {
  const settings = yield* ExecutorSettings
  const work = yield* ChainWork
  const executions = yield* Executions
  return yield* leasedWork<PaymentId, Exclude<ExecutionStep, "final">>({
    name: "executor",
    settings,
    claim: work.claim,
    release: work.release,
    advance: executions.advance,
    recheckAfter: (step) => (step === "pending" ? settings.pendingRecheckMs : settings.unknownRecheckMs),
    describe: (id) => id
  })
})

/** The executor, forked into the layer's scope. */
export const ExecutorJob: Layer.Layer<never, never, ExecutorSettings | ChainWork | Executions> = Layer.effectDiscard(
  Effect.forkScoped(executor).pipe(Effect.andThen(Effect.logInfo("worker started: executor")))
)
