/**
 * The settings of the worker's jobs (`@paygate/worker` `Jobs`) from configuration: `WORKER_*`,
 * `EXECUTOR_*`, `WATCHER_*`, `PAYOUT_*` (the deposit sweeps are tuned like the payouts),
 * `SUBSCRIPTION_*` and `HOLD_*`, each unset one the worker's default.
 *
 * @module
 */
import { Configuration } from "@paygate/adapters"
import {
  ExecutorSettings,
  executorSettingsFrom,
  HoldSettings,
  holdSettingsFrom,
  PayoutSettings,
  payoutSettingsFrom,
  SubscriptionSettings,
  subscriptionSettingsFrom,
  WatcherSettings,
  watcherSettingsFrom,
  WorkerSettings,
  workerSettingsFrom
} from "@paygate/worker"
import { Effect, Layer } from "effect"

/** Every job's settings, read when the worker starts. */
export const jobSettings = Layer.mergeAll(
  Layer.effect(WorkerSettings, Effect.map(Configuration.worker, workerSettingsFrom)),
  Layer.effect(ExecutorSettings, Effect.map(Configuration.executor, executorSettingsFrom)),
  Layer.effect(WatcherSettings, Effect.map(Configuration.watcher, watcherSettingsFrom)),
  Layer.effect(PayoutSettings, Effect.map(Configuration.payouts, payoutSettingsFrom)),
  Layer.effect(SubscriptionSettings, Effect.map(Configuration.subscriptions, subscriptionSettingsFrom)),
  Layer.effect(HoldSettings, Effect.map(Configuration.holds, holdSettingsFrom))
)
