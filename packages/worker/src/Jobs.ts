/**
 * Every job of the worker: the webhook jobs and expiry (`Worker.ts`), the executor (`Executor.ts`),
 * the payout jobs (`Payouts.ts`), the chain watcher (`ChainWatcher.ts`), the ledger's
 * reconciliation (`LedgerReconciliation.ts`), the deposit sweeps (`DepositSweeps.ts`), the
 * subscription charges (`Subscriptions.ts`) and the held payments' captures and voids (`Holds.ts`). The use cases and ports they run on (chain ports
 * included) and their settings come from the composition root (`Application.workerServices`, the
 * settings from configuration), which puts them together.
 *
 * @module
 */
import { Layer } from "effect"
import { WatcherJob } from "./ChainWatcher.ts"
import { DepositSweepJob } from "./DepositSweeps.ts"
import { ExecutorJob } from "./Executor.ts"
import { HoldJob } from "./Holds.ts"
import { LedgerReconciliationJob } from "./LedgerReconciliation.ts"
import { PayoutJobs } from "./Payouts.ts"
import { SubscriptionJob } from "./Subscriptions.ts"
import { WorkerJobs } from "./Worker.ts"

/** Every job, forked into the layer's scope (interrupted, gracefully, when it closes); sweeps are tuned like the payouts. */
export const Jobs = Layer.mergeAll(WorkerJobs, ExecutorJob, PayoutJobs, WatcherJob, LedgerReconciliationJob, DepositSweepJob, SubscriptionJob, HoldJob)
