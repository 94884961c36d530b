import { CredentialAdmin, CredentialCache, PooledRandom, SqlPersistence } from "@paygate/adapters"
import { IdGenerator, Merchants, Payments, Refunds, Settlements } from "@paygate/domain"
import { Layer } from "effect"
import { WebhookAdapters } from "@paygate/adapters"
import { Webhooks } from "@paygate/domain"
import type { SqlClient } from "effect/sql"
import * as GatewayServices from "./GatewayServices.ts"
import { CheckoutSettings } from "./server/CheckoutSettings.ts"
import { RateLimiter } from "./server/RateLimiter.ts"
import { SqlReadiness } from "./server/SqlReadiness.ts"

/** The use cases the HTTP API serves. */
export const UseCases = Layer.mergeAll(Payments.layer, Merchants.layer, Settlements.layer, Refunds.layer)

/** Webhook endpoints, deliveries and redelivery (contract §10), their adapters and settings from configuration. */
export const WebhookServices = Webhooks.layer.pipe(Layer.provideMerge(WebhookAdapters.layerFromConfig))

/**
 * Everything the routes need, over one database: use cases, SQL stores (with the credential cache), credentials admin,
 * readiness, rate limiting and settings, and the gateway's options over the configured chains
 * (`GatewayServices`). The database layer decides embedded vs PostgreSQL.
 */
export const servicesOver = <E, R>(
  database: Layer.Layer<SqlClient.SqlClient, E, R>,
  /** Chains, option id secret and sanctions list of the gateway's options; default from configuration. */
  gateway: Layer.Layer<GatewayServices.GatewaySettings, GatewayServices.GatewayConfigError> = GatewayServices.settingsFromConfig
) => servicesWith(database, gateway)

/**
 * {@link servicesOver} with any gateway settings layer, e.g. a local anvil chain for development:
 * `servicesWith(Database.layer, GatewayServices.settingsFromConfigWith(Chain.LocalChain.layer()))`.
 */
export const servicesWith = <E, R, GE, GR>(
  database: Layer.Layer<SqlClient.SqlClient, E, R>,
  gateway: Layer.Layer<GatewayServices.GatewaySettings, GE, GR>
) =>
  GatewayServices.layer.pipe(
    Layer.provideMerge(gateway),
    Layer.provideMerge(
      Layer.mergeAll(UseCases, CredentialAdmin.layer, SqlReadiness, RateLimiter.layer, CheckoutSettings.layer).pipe(
        Layer.provideMerge(WebhookServices),
        Layer.provideMerge(SqlPersistence.layer),
        // Credentials and merchant API merchants kept for a few seconds (see CredentialCache).
        Layer.provideMerge(CredentialCache.layer),
        Layer.provideMerge(IdGenerator.layer),
        Layer.provide(PooledRandom.layer),
        Layer.provideMerge(database)
      )
    )
  )
