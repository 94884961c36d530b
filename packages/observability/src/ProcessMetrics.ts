/**
 * The metrics every paygate process may export, whatever it runs (the HTTP service, the worker
 * on its own): webhook delivery outcomes (fed by the worker's deliverer), failed chain JSON-RPC
 * calls (fed by the adapters' `chain/RpcCall.ts`) and the process's memory and CPU. The HTTP
 * service's own metrics are in `@paygate/http` (`observability/MetricSeries.ts`).
 *
 * They live in effect's metric registry (`Metric.MetricRegistry`, one per process), so whichever
 * part of the process updates them, `GET /metrics` of that process shows them ({@link render}).
 *
 * | name | type | labels | what |
 * |---|---|---|---|
 * | `paygate_webhook_deliveries_total` | counter | `outcome` | webhook delivery attempts by outcome |
 * | `paygate_chain_rpc_errors_total` | counter | `chain_id`, `operation`, `failure` | failed chain JSON-RPC calls |
 * | `paygate_chain_quarantined_transfers_total` | counter | `chain_id` | transfer logs the chain watcher could not record |
 * | `paygate_executor_gas_total` | counter | `chain_id` | gas limits of the transactions the executor sent for pull payments |
 * | `paygate_executor_gas_refused_total` | counter | `chain_id`, `reason` | pull payment transactions not sent: `reverts`, `ceiling`, `buyer_budget`, `total_budget` |
 * | `paygate_ledger_differences` | gauge | `chain_id` | addresses whose ledger balance differed from the chain in two reconciliation runs running |
 * | `process_resident_memory_bytes` | gauge | | resident set size (scrape time) |
 * | `process_cpu_seconds_total` | counter | | user + system CPU time (scrape time) |
 *
 * @module
 */
import type { AttemptRecord } from "@paygate/domain"
import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"

/**
 * How one webhook delivery attempt ended: `delivered` (2xx), `failed` (any other response or no
 * answer; it will be retried) or `abandoned` (failed for the last time, or the endpoint is gone).
 */
export type WebhookOutcome = "delivered" | "failed" | "abandoned"

/** Every {@link WebhookOutcome}, exported at 0 before the first delivery. */
export const webhookOutcomes: ReadonlyArray<WebhookOutcome> = ["delivered", "failed", "abandoned"]

/** The counters of one metric, one per set of labels, each made on first use. */
const labelledCounters = (name: string, description: string) => {
  const made = new Map<string, Metric.Counter<number>>()
  return (attributes: Record<string, string>) => {
    const key = JSON.stringify(attributes)
    let counter = made.get(key)
    if (counter === undefined) {
      counter = Metric.counter(name, { description, incremental: true, attributes })
      made.set(key, counter)
    }
    return counter
  }
}

const webhookCounters = labelledCounters("paygate_webhook_deliveries_total", "Webhook delivery attempts by outcome.")

/** The counter of one webhook delivery outcome. */
export const webhookDeliveries = (outcome: WebhookOutcome) => webhookCounters({ outcome })

/** Counts one webhook delivery attempt. */
export const recordWebhookDelivery = (outcome: WebhookOutcome) => Metric.update(webhookDeliveries(outcome), 1)

/** The outcome of an attempt, from what it recorded: succeeded, to be retried, or over. */
export const outcomeOf = (attempt: AttemptRecord): WebhookOutcome =>
  attempt.status === "succeeded" ? "delivered" : attempt.status === "pending" ? "failed" : "abandoned"

const chainCounters = labelledCounters(
  "paygate_chain_rpc_errors_total",
  "Chain JSON-RPC calls that failed, by CAIP-2 chain id, operation and failure (reverted, rejected, unavailable)."
)

/** The counter of failed JSON-RPC calls of one chain, operation and failure kind. */
export const chainRpcErrors = (chainId: string, operation: string, failure: string) =>
  chainCounters({ chain_id: chainId, operation, failure })

/** Counts one failed chain call (see `rpc` in `chain/RpcCall.ts`, the single entry point). */
export const recordChainRpcError = (chainId: string, operation: string, failure: string) =>
  Metric.update(chainRpcErrors(chainId, operation, failure), 1)

const disagreementCounters = labelledCounters(
  "paygate_chain_rpc_disagreements_total",
  "Chain reads on which the RPC providers answered but no quorum of them alike, by CAIP-2 chain id and operation."
)

/** The counter of reads of one chain and operation on which its providers disagreed. */
export const chainRpcDisagreements = (chainId: string, operation: string) => disagreementCounters({ chain_id: chainId, operation })

/** Counts one read on which the chain's providers disagreed (see `chain/QuorumTransport.ts`). */
export const recordChainRpcDisagreement = (chainId: string, operation: string) =>
  Metric.update(chainRpcDisagreements(chainId, operation), 1)

const deepReorgCounters = labelledCounters(
  "paygate_chain_deep_reorgs_total",
  "Reorganisations deeper than the confirmations the chain watcher found, by CAIP-2 chain id and whether they reached past its rewind window (within, beyond)."
)

/** The counter of reorganisations deeper than the confirmations of one chain, within or beyond the watcher's rewind window. */
export const chainDeepReorgs = (chainId: string, window: "within" | "beyond") => deepReorgCounters({ chain_id: chainId, window })

const quarantineCounters = labelledCounters(
  "paygate_chain_quarantined_transfers_total",
  "Transfer logs the chain watcher could not record and quarantined, by CAIP-2 chain id."
)

/** The counter of transfer logs of one chain that the watcher quarantined (could not record). */
export const quarantinedTransfers = (chainId: string) => quarantineCounters({ chain_id: chainId })

const executorGasCounters = labelledCounters(
  "paygate_executor_gas_total",
  "Gas limits of the transactions the executor sent for pull payments, by CAIP-2 chain id."
)

/** The counter of gas (transaction gas limits) the executor of `chainId` committed to pull payments. */
export const executorGas = (chainId: string) => executorGasCounters({ chain_id: chainId })

/** Counts the gas limit of one transaction the executor sends. */
export const recordExecutorGas = (chainId: string, gas: number) => Metric.update(executorGas(chainId), gas)

const executorRefusalCounters = labelledCounters(
  "paygate_executor_gas_refused_total",
  "Pull payment transactions the executor did not send, by CAIP-2 chain id and reason (reverts, ceiling, buyer_budget, total_budget)."
)

/** The counter of pull payment transactions the executor of `chainId` did not send, by reason. */
export const executorGasRefused = (chainId: string, reason: string) => executorRefusalCounters({ chain_id: chainId, reason })

/** Counts one transaction the executor did not send. */
export const recordExecutorGasRefused = (chainId: string, reason: string) => Metric.update(executorGasRefused(chainId, reason), 1)

const ledgerGauges = new Map<string, Metric.Gauge<number>>()

/**
 * The gauge of addresses of `chainId` whose balance in the ledger differed from the chain's in the
 * last two reconciliation runs (set by each run; 0 when all agree).
 */
export const ledgerDifferences = (chainId: string) => {
  let gauge = ledgerGauges.get(chainId)
  if (gauge === undefined) {
    gauge = Metric.gauge("paygate_ledger_differences", {
      description: "Addresses whose ledger balance differs from their on-chain balance (two reconciliation runs running), by CAIP-2 chain id.",
      attributes: { chain_id: chainId }
    })
    ledgerGauges.set(chainId, gauge)
  }
  return gauge
}

/** Resident set size of this process (set at scrape time). */
export const residentMemory = Metric.gauge("process_resident_memory_bytes", { description: "Resident memory size in bytes." })

/** CPU time of this process (advanced at scrape time by the CPU used since the previous scrape). */
export const cpuSeconds = Metric.counter("process_cpu_seconds_total", {
  description: "Total user and system CPU time spent in seconds.",
  incremental: true
})

let lastCpuMicros = 0

/** Sets the process gauges (memory now, CPU used since the last scrape). */
export const refreshProcessGauges: Effect.Effect<void> = Effect.suspend(() => {
  const cpu = process.cpuUsage()
  const micros = cpu.user + cpu.system
  const delta = Math.max(0, micros - lastCpuMicros)
  lastCpuMicros = micros
  return Effect.andThen(
    Metric.update(residentMemory, process.memoryUsage.rss()),
    Metric.update(cpuSeconds, delta / 1e6)
  )
})

/** Registers the series that should read 0 before their first event, so dashboards see them at once. */
export const registerInitialSeries: Effect.Effect<void> = Effect.forEach(
  webhookOutcomes,
  (outcome) => Metric.update(webhookDeliveries(outcome), 0),
  { discard: true }
)

/** Prometheus text exposition format, version 0.0.4. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** The whole registry in the Prometheus text format, process gauges refreshed first. */
export const render: Effect.Effect<string> = Effect.andThen(refreshProcessGauges, PrometheusMetrics.format())
