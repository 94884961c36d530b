/**
 * @paygate/observability: the metrics every paygate process may export (webhook deliveries, chain
 * JSON-RPC failures, executor gas, the watcher's reorganisations and quarantine, ledger differences,
 * memory and CPU) and their Prometheus exposition. The adapters, the HTTP service and the worker
 * update them; whichever process runs them shows them on its metrics endpoint.
 *
 * @module
 */
export * as ProcessMetrics from "./ProcessMetrics.ts"
