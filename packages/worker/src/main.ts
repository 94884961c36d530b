/**
 * `npm run worker`: the worker in its own process. Database as the service's: `DATABASE_URL`
 * (PostgreSQL), else the embedded PGlite of `PAYGATE_DATA_DIR` — through the running service's
 * socket when it runs (the embedded directory has one owner), else opened here. Applies pending
 * migrations, then runs the jobs until SIGTERM/SIGINT, which finishes or releases claimed work.
 * With `WORKER_METRICS_PORT`, it answers `GET /metrics` on that port (`MetricsListener.ts`).
 * The executor, the chain watcher and the payout jobs work on the chains of `PAYGATE_CHAINS` or
 * `PAYGATE_NETWORKS` (none when both are unset).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Application, JsonLogger } from "@paygate/adapters"
import { Layer } from "effect"
import { MetricsListener } from "./MetricsListener.ts"
import { WorkerLive } from "./Worker.ts"

Layer.mergeAll(WorkerLive, MetricsListener).pipe(
  Layer.provide(Application.migrated),
  Layer.provide(Application.workerChainGateway),
  Layer.provide(Application.workerDatabase),
  Layer.provide(JsonLogger.layer),
  Layer.launch,
  NodeRuntime.runMain
)
