/**
 * Every job of the worker, tuned from configuration: the webhook jobs and expiry (`Worker.ts`), the
 * executor (`Executor.ts`), the payout jobs (`Payouts.ts`), the chain watcher (`ChainWatcher.ts`)
 * and the deposit sweeps (`DepositSweeps.ts`). The use cases and ports they run on (chain ports
 * included) come from `@paygate/adapters` `Application.workerServices`; the composition root puts
 * the two together.
 *
 * Configuration: the `WORKER_*`, `EXECUTOR_*`, `PAYOUT_*` and `WATCHER_*` settings.
 *
 * @module
 */
import { Layer } from "effect"
import { WatcherJob, watcherSettingsLayer } from "./ChainWatcher.ts"
import { DepositSweepJob } from "./DepositSweeps.ts"
import { ExecutorJob, executorSettingsLayer } from "./Executor.ts"
import { LedgerReconciliationJob } from "./LedgerReconciliation.ts"
import { payoutSettingsLayer, PayoutsLive } from "./Payouts.ts"
import { WorkerJobs, workerSettingsLayer } from "./Worker.ts"

/** Every job, forked into the layer's scope (interrupted, gracefully, when it closes). */
export const Jobs = Layer.mergeAll(
  WorkerJobs,
  ExecutorJob,
  PayoutsLive,
  WatcherJob,
  LedgerReconciliationJob,
  // Sweeps are tuned like the payouts (`PAYOUT_*`).
  DepositSweepJob.pipe(Layer.provide(payoutSettingsLayer))
).pipe(
  Layer.provide(Layer.mergeAll(workerSettingsLayer, executorSettingsLayer, watcherSettingsLayer))
)
