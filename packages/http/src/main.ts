import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Chain, Database, JsonLogger, Migrations } from "@paygate/adapters"
import { WorkerLive } from "@paygate/worker"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter } from "effect/http"
import { AppRoutes, routerConfig } from "./App.ts"
import { createServer } from "./server/EarlyRequests.ts"
import { bootstrapSandbox, type SandboxCredentials } from "./Bootstrap.ts"
import { beginDraining } from "./observability/Shutdown.ts"
import * as Tracing from "./observability/Tracing.ts"
import { RouteMetrics } from "./server/Metrics.ts"
import * as GatewayServices from "./GatewayServices.ts"
import { servicesWith } from "./Services.ts"

const welcome = (
  baseUrl: string,
  created: SandboxCredentials | undefined,
  tokens: ReadonlyArray<string>,
  localChains: ReadonlyArray<string>
) => {
  const lines = [``, `paygate is listening on ${baseUrl}  (API docs: ${baseUrl}/docs, OpenAPI: ${baseUrl}/openapi.json)`]
  lines.push(tokens.length === 0 ? `No chain configured (PAYGATE_CHAINS): payments have no options.` : `Accepting ${tokens.join(", ")}`)
  for (const chain of localChains) lines.push(`Local chain ${chain}: add it to a browser wallet to pay on the checkout page (gatewayUrl)`)
  if (created === undefined) {
    lines.push(`Using the existing database. New keys: npm run admin -- key create --partner <ptn_…> --sandbox`, ``)
  } else {
    lines.push(
      ``,
      `First start: created sandbox credentials. Keep them; secrets are stored hashed and shown only now.`,
      `  partner       ${created.partnerId}`,
      `  Api-Key       ${created.apiKey}`,
      `  Merchant-Id   ${created.merchantId}`,
      `  App-Id        ${created.appId}   (wallet Api-Key ${created.walletApiKey})`,
      ``,
      `Create a payment:`,
      `  curl -s ${baseUrl}/v1/merchant/payment \\`,
      `    -H 'Api-Key: ${created.apiKey}' -H 'Merchant-Id: ${created.merchantId}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '{"amount":{"unit":"iso4217/USD","value":"1050"},"referenceId":"order-1"}'`,
      ``,
      `Pay it in a browser: open the gatewayUrl of the answer (README: "Pay in the browser: the hosted checkout").`,
      ``,
      `Or pay it as a wallet would, with anvil's well-known test account #1 (README: "Pay a sandbox payment"):`,
      `  npm run pay -- <paymentId> --app-id ${created.appId} --url ${baseUrl}`,
      ``
    )
  }
  console.log(lines.join("\n"))
}

// PAYGATE_CHAINS when set; otherwise a local anvil chain with the EIP-3009 test token, so a newcomer can pay.
type ChainsLayer = Layer.Layer<
  Chain.ChainConfig.ChainsConfig,
  Config.ConfigError | Chain.ChainConfig.ChainConfigError | Chain.Anvil.AnvilError | Chain.Deploy.DeployError
>
const usesLocalChain = Effect.map(
  Config.option(Config.String(Chain.ChainConfig.envVar)),
  (text) => !(Option.isSome(text) && text.value.trim() !== "")
)
const chainsForStart: ChainsLayer = Layer.unwrap(
  Effect.map(usesLocalChain, (local): ChainsLayer => (local ? Chain.LocalChain.layer() : Chain.ChainConfig.layerFromEnv))
)

const main = Effect.gen(function*() {
  const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
  const migrated = yield* Migrations.run
  if (migrated.length > 0) yield* Effect.logInfo("migrations applied", { migrations: migrated.map(([id, name]) => `${id}_${name}`) })
  const created = yield* bootstrapSandbox
  // The worker runs in this process unless it runs separately (`npm run worker`).
  if (yield* Config.Boolean("WORKER_IN_PROCESS").pipe(Config.withDefault(true))) yield* Layer.build(WorkerLive)
  const chains = yield* Chain.ChainConfig.ChainsConfig
  const tokens = [...chains.assets.values()].map((asset) => `${asset.assetId} (${asset.symbol})`)
  // The local anvil's RPC address, for a browser wallet (configured RPC URLs may hold keys: never printed).
  const localChains = (yield* usesLocalChain)
    ? chains.settings.chains.map((chain) => `${chain.chainId} at ${Redacted.value(chain.rpcUrl)}`)
    : []
  const server = HttpRouter.serve(AppRoutes, { routerConfig, disableLogger: true }).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port })))
  yield* Layer.build(server)
  // Runs first on SIGTERM (finalizers run in reverse): responses from now on close their connections.
  yield* Effect.addFinalizer(() => beginDraining)
  welcome(`http://localhost:${port}`, created, tokens, localChains)
  return yield* Effect.never
}).pipe(Effect.scoped)

main.pipe(
  // Every route of the app labels its request metrics with its template (server/Metrics.ts).
  Effect.provide(RouteMetrics),
  Effect.provide(servicesWith(Database.layer, GatewayServices.settingsFromConfigWith(chainsForStart))),
  // OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (observability/Tracing.ts).
  Effect.provide(Tracing.layer),
  Effect.provide(JsonLogger.layer),
  NodeRuntime.runMain
)
