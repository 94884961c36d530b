/**
 * The worker's chain jobs for tests over a test server's services, checking often: the executor
 * (`Executor.ts`) and the payout jobs (`Payouts.ts`, over `WorkerPorts.payoutPorts` of their own:
 * their own `ViemPayouts`, as in a worker process of their own), and the deposit sweeps; each records
 * the gas the service paid (`ViemGasMeter`), as in the worker.
 */
import { Chain, SqlChainWork, SqlPersistence, WorkerPorts } from "@paygate/adapters"
import {
  type DepositSweeper,
  DepositSweeps,
  ExecutionPolicy,
  Executions,
  PayoutExecutions,
  PayoutPolicy,
  ReceiptRefundExecutions,
  SettlementDecisions
} from "@paygate/domain"
import {
  defaultExecutorSettings,
  defaultPayoutSettings,
  depositSweepJob,
  ExecutorJob,
  ExecutorSettings,
  PayoutSettings,
  type PayoutSettingsShape,
  payoutsWith
} from "@paygate/worker"
import { Layer } from "effect"

/**
 * The executor, checking every 50 ms, pending transactions every 100 ms, after an RPC failure every
 * 300 ms; a dropped transaction is replaced after 500 ms.
 */
export const executorJob = ExecutorJob.pipe(
  Layer.provide(Layer.mergeAll(
    Executions.layer.pipe(Layer.provide(Layer.mergeAll(Layer.succeed(ExecutionPolicy, { droppedResendAfterMs: 500 }), Chain.ViemGasMeter.layer))),
    SqlChainWork.layer
  )),
  Layer.provide(Layer.succeed(ExecutorSettings, {
    ...defaultExecutorSettings,
    pollIntervalMs: 50,
    pendingRecheckMs: 100,
    unknownRecheckMs: 300
  }))
)

/**
 * The payout jobs' use cases over the ports in context (as the composition root builds them), a
 * payout failing after `maxAttempts` attempts (the domain's default when not given).
 */
export const payoutUseCases = (maxAttempts?: number) =>
  Layer.mergeAll(PayoutExecutions.layer, SettlementDecisions.layer, ReceiptRefundExecutions.layer).pipe(
    Layer.provide(maxAttempts === undefined ? Layer.empty : Layer.succeed(PayoutPolicy, { maxAttempts }))
  )

/** The payout jobs with fast rechecks, retries after 200 ms and `maxAttempts` attempts (default 3). */
export const payoutJobs = (options: { readonly maxAttempts?: number; readonly settings?: Partial<PayoutSettingsShape> } = {}) =>
  payoutsWith(Layer.succeed(PayoutSettings, {
    ...defaultPayoutSettings,
    pollIntervalMs: 50,
    pendingRecheckMs: 100,
    unknownRecheckMs: 300,
    retryMs: 200,
    ...options.settings
  })).pipe(Layer.provide(payoutUseCases(options.maxAttempts ?? 3)), Layer.provide(WorkerPorts.payoutPorts))

/** The deposit sweeps over their own `ViemDepositSweeper`, rechecking like the payout jobs above, leased for 1.5 s. */
export const sweepJob = depositSweepJob.pipe(
  Layer.provide(DepositSweeps.layer),
  Layer.provide(Layer.mergeAll(
    SqlPersistence.layer,
    Chain.ViemDepositSweeper.layer as Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig>,
    Chain.ViemGasMeter.layer
  )),
  Layer.provide(Layer.succeed(PayoutSettings, {
    ...defaultPayoutSettings,
    pollIntervalMs: 50,
    pendingRecheckMs: 100,
    unknownRecheckMs: 300,
    retryMs: 200,
    leaseMs: 1_500
  }))
)
