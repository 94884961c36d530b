/**
 * `npm run worker`: the worker in its own process. Database as the service's: `DATABASE_URL`
 * (PostgreSQL), else the embedded PGlite of `PAYGATE_DATA_DIR` — through the running service's
 * socket when it runs (the embedded directory has one owner), else opened here. Applies pending
 * migrations, then runs the jobs until SIGTERM/SIGINT, which finishes or releases claimed work.
 * With `WORKER_METRICS_PORT`, it answers `GET /metrics` on that port (`MetricsListener.ts`).
 * The executor and the payout jobs work on the chains of `PAYGATE_CHAINS` (none when unset).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Chain, Database, JsonLogger, Migrations } from "@paygate/adapters"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { MetricsListener } from "./MetricsListener.ts"
import { WorkerLive } from "./Worker.ts"

const database = Layer.unwrap(
  Effect.gen(function*() {
    const url = yield* Config.option(Config.Redacted("DATABASE_URL"))
    return Option.isSome(url) && Redacted.value(url.value).trim() !== "" ? Database.layer : Database.layerForOperator
  })
)

const main = Effect.gen(function*() {
  const migrated = yield* Migrations.run
  if (migrated.length > 0) yield* Effect.logInfo("migrations applied", { migrations: migrated.map(([id, name]) => `${id}_${name}`) })
  return yield* Layer.launch(Layer.merge(WorkerLive, MetricsListener))
})

// The executor's and the payouts' chains (PAYGATE_CHAINS); the worker never verifies signatures, so recovery runs inline.
const chainGateway = Chain.ViemChainGateway.layer.pipe(
  Layer.provideMerge(Chain.ChainConfig.layerFromEnvOrEmpty),
  Layer.provide(Chain.SignatureRecovery.layerInline)
)

main.pipe(
  Effect.provide(chainGateway),
  Effect.provide(database),
  Effect.provide(JsonLogger.layer),
  NodeRuntime.runMain
)
