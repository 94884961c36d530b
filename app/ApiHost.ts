/**
 * What the HTTP package's layers ask of their host, filled in from the configuration and the
 * adapters: the API's settings (`@paygate/http`'s settings services), the readiness of its database
 * and the source of its request ids. The mains and the test harnesses that serve the API take them
 * from here.
 *
 * @module
 */
import { Configuration, Migrations, PooledRandom } from "@paygate/adapters"
import {
  CheckoutSettings,
  Environment,
  MetricsToken,
  OtlpSettings,
  Readiness,
  RequestIdBytes,
  ServerSettings,
  SessionSettings,
  WalletOrigins
} from "@paygate/http"
import { Context, Effect, Layer, Option } from "effect"

/**
 * The public addresses: `CHECKOUT_URL` and `DATA_COLLECTION_URL`, defaulting to this server's
 * `/checkout` and `/collect` on `PUBLIC_URL` or `http://localhost:PORT`.
 */
export const checkoutSettings = Layer.effect(
  CheckoutSettings,
  Effect.gen(function*() {
    const port = yield* Configuration.port
    const publicUrl = Option.getOrElse(yield* Configuration.publicUrl, () => `http://localhost:${port}`).replace(/\/$/, "")
    const checkoutUrl = Option.getOrElse(yield* Configuration.checkoutUrl, () => `${publicUrl}/checkout`)
    const dataCollectionUrl = Option.getOrElse(yield* Configuration.dataCollectionUrl, () => `${publicUrl}/collect`)
    return CheckoutSettings.of({
      checkoutUrl: checkoutUrl.replace(/\/$/, ""),
      dataCollectionUrl: dataCollectionUrl.replace(/\/$/, ""),
      x402Url: `${publicUrl}/v1/x402/payments`,
      linkUrl: `${publicUrl}/l`,
      subscribeUrl: `${publicUrl}/s`,
      refundClaimUrl: `${publicUrl}/r`
    })
  })
)

/**
 * The address the API listens on: `HOST`; unset, 127.0.0.1 for the embedded local set-up (whose
 * sandbox nobody else should reach), every interface (`undefined`) with `DATABASE_URL`.
 */
export const host = Effect.gen(function*() {
  const configured = yield* Configuration.host
  if (Option.isSome(configured)) return configured.value.trim()
  return Option.isNone(yield* Configuration.databaseUrl) ? "127.0.0.1" : undefined
})

// Read one after the other, in the order the API's layers use them: of several bad values, the
// first stops the start.
const settings = Effect.gen(function*() {
  const rateLimit = yield* Configuration.rateLimit
  const trustedProxies = yield* Configuration.trustedProxies
  const maxConnectionsPerClient = yield* Configuration.maxConnectionsPerClient
  const listenOn = yield* host
  const port = yield* Configuration.port
  const lifetimes = yield* Configuration.dashboardSessions
  const signInCeilingPerMinute = yield* Configuration.dashboardSignInCeilingPerMinute
  const publicUrl = yield* Configuration.publicUrl
  const environment = yield* Configuration.environment
  const walletOrigins = yield* Configuration.walletOrigins
  const metricsToken = yield* Configuration.metricsToken
  return Context.make(ServerSettings, { port, host: listenOn, maxConnectionsPerClient, trustedProxies, rateLimit }).pipe(
    Context.add(SessionSettings, { ...lifetimes, signInCeilingPerMinute, publicUrl }),
    Context.add(Environment, environment),
    Context.add(WalletOrigins, walletOrigins),
    Context.add(MetricsToken, metricsToken)
  )
})

/**
 * Everything the API's routes and server take from their host but the application's services:
 * the settings from the configuration, readiness (the database answers and is migrated, over the
 * `SqlClient`) and request ids from the adapters' pooled random bytes.
 */
export const layer = Layer.mergeAll(
  Layer.effectContext(settings),
  Layer.effect(Readiness, Effect.map(Migrations.readiness, (check) => Readiness.of({ check }))),
  Layer.succeed(RequestIdBytes, PooledRandom.randomBytes)
)

/** The OpenTelemetry export of `Tracing.layer`, from the `OTEL_*` variables. */
export const otlpSettings = Layer.effect(OtlpSettings, Configuration.tracing)
