/**
 * The worker composed: its jobs (`@paygate/worker` `Jobs`) over the use cases and adapters they run
 * on (`Application.workerServices`) with their settings from configuration (`JobSettings.ts`).
 * {@link WorkerLive} runs inside the service (`Service.ts`) and test hosts; {@link WorkerProcessLive}
 * is the worker in its own process.
 *
 * @module
 */
import { type Chain, Configuration, Database, LogOutput, Migrations, WorkerPorts } from "@paygate/adapters"
import type { ChainGateway } from "@paygate/domain"
import { Jobs, metricsListener } from "@paygate/worker"
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import * as Application from "./Application.ts"
import { jobSettings } from "./JobSettings.ts"

/**
 * Every job with everything it needs, given the `SqlClient` (migrated), the `ChainGateway` (one per
 * process: it holds each executor account's nonce sequence) and the chain configuration:
 *
 * ```ts
 * yield* Layer.build(WorkerLive) // within a scope, with the SqlClient, ChainGateway and ChainsConfig provided
 * ```
 */
export const WorkerLive: Layer.Layer<
  never,
  Layer.Error<typeof Jobs> | Layer.Error<typeof Application.workerServices> | Layer.Error<typeof jobSettings>,
  SqlClient.SqlClient | ChainGateway | Chain.ChainConfig.ChainsConfig
> = Jobs.pipe(Layer.provide(Layer.merge(Application.workerServices, jobSettings)))

/** `GET /metrics` on `WORKER_METRICS_PORT`; unset (the default), no listener. */
const MetricsListener = Layer.unwrap(
  Effect.map(Configuration.workerMetricsPort, Option.match({ onNone: () => Layer.empty, onSome: metricsListener }))
)

/**
 * `npm run worker`: the worker in its own process. Database as the service's: `DATABASE_URL`
 * (PostgreSQL), else the embedded PGlite of `PAYGATE_DATA_DIR` — through the running service's
 * socket when it runs (the embedded directory has one owner), else opened here. Applies pending
 * migrations, then runs the jobs until SIGTERM/SIGINT, which finishes or releases claimed work.
 * With `WORKER_METRICS_PORT`, it answers `GET /metrics` on that port (`MetricsListener`). The
 * executor, the chain watcher and the payout jobs work on the chains of `PAYGATE_CHAINS` or
 * `PAYGATE_NETWORKS` (none when both are unset).
 */
export const WorkerProcessLive = Layer.mergeAll(WorkerLive, MetricsListener).pipe(
  Layer.provide(Migrations.layer),
  Layer.provide(WorkerPorts.chainGateway),
  Layer.provide(Database.layerForWorker),
  Layer.provide(LogOutput.layer)
)
