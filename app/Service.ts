/**
 * The composition root: the one place that puts paygate together from the packages' layers.
 *
 * - {@link ServiceLive}: the service as `npm start` runs it (migrations, first-start sandbox, the
 *   worker in this process unless `WORKER_IN_PROCESS=false`, the API on `PORT`).
 * - {@link ApiLive}: the same without the worker (API processes next to `npm run worker` ones).
 *
 * The worker alone (`worker.ts`, composed in `WorkerLive.ts`) and the operator CLI (`admin.ts`) need
 * no HTTP and take their layers from `Application.ts`.
 *
 * @module
 */
import { Chain, Configuration, Database, GatewayServices, LogOutput, Migrations } from "@paygate/adapters"
import { ApiServer, RequestLogLevel, Tracing } from "@paygate/http"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { existsSync } from "node:fs"
import * as ApiHost from "./ApiHost.ts"
import * as Application from "./Application.ts"
import { bootstrapSandbox } from "./Bootstrap.ts"
import { localChainStateFile, publishAddress } from "./EarlierStart.ts"
import { sandboxEnvPath, sandboxEnvText, shownPath, writeSandboxEnv } from "./SandboxEnv.ts"
import { welcome } from "./Welcome.ts"
import { WorkerLive } from "./WorkerLive.ts"

// PAYGATE_NETWORKS or PAYGATE_CHAINS when set; otherwise a local anvil chain with the EIP-3009 test token, so a newcomer can pay.
type ChainsLayer = Layer.Layer<
  Chain.ChainConfig.ChainsConfig,
  Config.ConfigError | Chain.ChainConfig.ChainConfigError | Chain.Anvil.AnvilError | Chain.Deploy.DeployError
>
const usesLocalChain = Effect.map(Chain.ChainSource.isConfigured, (configured) => !configured)
const embedded = Effect.map(Configuration.databaseUrl, Option.isNone)
// The local set-up (the embedded database) logs each request at debug level: a person watches its
// terminal, and LOG_LEVEL=debug shows them.
const requestLogLevel = Layer.unwrap(
  Effect.map(embedded, (local) => (local ? Layer.succeed(RequestLogLevel, "Debug") : Layer.empty))
)
// The local chain answers on LOCAL_CHAIN_PORT (8545), so a browser wallet set up once keeps working;
// with the embedded database it is kept beside it (its transactions outlive restarts like the
// payments that name them), with DATABASE_URL it starts fresh.
const localChain = Layer.unwrap(
  Effect.gen(function*() {
    const port = yield* Configuration.localChainPort
    const stateFile = (yield* embedded) ? localChainStateFile(yield* Configuration.dataDir) : undefined
    // TUSDT too: a token without EIP-3009, paid through Permit2, as USDT is on real networks.
    return Chain.LocalChain.layer({ port, stateFile, usdt: true })
  })
)
const chainsForStart: ChainsLayer = Layer.unwrap(
  Effect.map(usesLocalChain, (local): ChainsLayer => (local ? localChain : Chain.ChainSource.layer))
)

/** The application over `DATABASE_URL` (else the embedded PGlite), with the chains `npm start` uses. */
const application = Application.layerWith(Database.layer, GatewayServices.settingsFromConfigWith(chainsForStart))

const serve = (withWorker: boolean) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      // Listening first: a port in use stops the start before it creates anything.
      yield* Layer.build(ApiServer.layer.pipe(Layer.provide(ApiHost.layer)))
      const sandbox = yield* bootstrapSandbox
      if (withWorker && (yield* Configuration.workerInProcess)) yield* Layer.build(WorkerLive)
      const chains = yield* Chain.ChainConfig.ChainsConfig
      const tokens = [...chains.assets.values()].map((asset) => `${asset.assetId} (${asset.symbol})`)
      // The local anvil's RPC address, for a browser wallet (configured RPC URLs may hold keys: never printed).
      const localChains = (yield* usesLocalChain)
        ? chains.settings.chains.map((chain) => `${chain.chainId} at ${Redacted.value(chain.rpcUrl)}`)
        : []
      const euro = [...chains.assets.values()].find((asset) => asset.pricing.kind === "peg" && asset.pricing.currency === "EUR")
      const baseUrl = `http://localhost:${yield* Configuration.port}`
      // The local set-up says where it listens (for a second start to name it) and keeps the
      // sandbox's credentials in a file to `source`, so they cannot scroll away.
      const dataDir = (yield* embedded) ? Option.some(yield* Configuration.dataDir) : Option.none<string>()
      if (Option.isSome(dataDir)) yield* Effect.promise(() => publishAddress(dataDir.value, baseUrl))
      const envFile = Option.isSome(dataDir) ? sandboxEnvPath(dataDir.value) : undefined
      if (envFile !== undefined && Option.isSome(sandbox) && Option.isSome(sandbox.value.secrets)) {
        const { ids, secrets } = sandbox.value
        yield* Effect.promise(() => writeSandboxEnv(envFile, sandboxEnvText(baseUrl, ids, secrets.value, shownPath(envFile))))
      }
      welcome(baseUrl, sandbox, tokens, localChains, envFile !== undefined && existsSync(envFile) ? shownPath(envFile) : undefined, euro?.symbol)
    })
  ).pipe(
    Layer.provide(Migrations.layer),
    Layer.provide(application),
    // OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    Layer.provide(Tracing.layer.pipe(Layer.provide(ApiHost.otlpSettings))),
    Layer.provide(requestLogLevel),
    Layer.provide(LogOutput.layer)
  )

/** The service as `npm start` runs it (see the module comment). */
export const ServiceLive = serve(true)

/** The API without the worker. */
export const ApiLive = serve(false)
