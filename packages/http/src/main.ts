import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Database, Migrations } from "@paygate/adapters"
import { Config, Effect, Layer, Logger } from "effect"
import { HttpRouter } from "effect/http"
import { createServer } from "node:http"
import { AppRoutes, routerConfig } from "./App.ts"
import { bootstrapSandbox, type SandboxCredentials } from "./Bootstrap.ts"
import { servicesOver } from "./Services.ts"

const welcome = (baseUrl: string, created: SandboxCredentials | undefined) => {
  const lines = [``, `paygate is listening on ${baseUrl}  (API docs: ${baseUrl}/docs, OpenAPI: ${baseUrl}/openapi.json)`]
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
      ``
    )
  }
  console.log(lines.join("\n"))
}

const main = Effect.gen(function*() {
  const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
  const migrated = yield* Migrations.run
  if (migrated.length > 0) yield* Effect.logInfo("migrations applied", { migrations: migrated.map(([id, name]) => `${id}_${name}`) })
  const created = yield* bootstrapSandbox
  const server = HttpRouter.serve(AppRoutes, { routerConfig }).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port })))
  yield* Layer.build(server)
  welcome(`http://localhost:${port}`, created)
  return yield* Effect.never
}).pipe(Effect.scoped)

main.pipe(
  Effect.provide(servicesOver(Database.layer)),
  Effect.provide(Logger.layer([Logger.consoleJson])),
  NodeRuntime.runMain
)
