/**
 * @paygate/worker: background jobs (webhook dispatch and delivery, payment expiry, the chain
 * executor, settlements and refunds, the chain watcher, deposit sweeps, subscription charges).
 *
 * @module
 */
export * from "./ChainWatcher.ts"
export * from "./DepositSweeps.ts"
export * from "./Executor.ts"
export * from "./LedgerReconciliation.ts"
export * from "./Jobs.ts"
export * from "./MetricsListener.ts"
export * from "./Payouts.ts"
export * from "./Holds.ts"
export * from "./Subscriptions.ts"
export * from "./TransferRecording.ts"
export * from "./Worker.ts"
