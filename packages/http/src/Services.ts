import { CredentialAdmin, SqlPersistence } from "@paygate/adapters"
import { IdGenerator, Merchants, Payments, Refunds, Settlements } from "@paygate/domain"
import { Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import { CheckoutSettings } from "./server/CheckoutSettings.ts"
import { RateLimiter } from "./server/RateLimiter.ts"
import { SqlReadiness } from "./server/SqlReadiness.ts"

/** The use cases the HTTP API serves. */
export const UseCases = Layer.mergeAll(Payments.layer, Merchants.layer, Settlements.layer, Refunds.layer)

/**
 * Everything the routes need, over one database: use cases, SQL stores, credentials admin,
 * readiness, rate limiting and settings. The database layer decides embedded vs PostgreSQL.
 */
export const servicesOver = <E, R>(database: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  Layer.mergeAll(UseCases, CredentialAdmin.layer, SqlReadiness, RateLimiter.layer, CheckoutSettings.layer).pipe(
    Layer.provideMerge(SqlPersistence.layer),
    Layer.provideMerge(IdGenerator.layer),
    Layer.provide(SecureRandom.layerWebCrypto),
    Layer.provideMerge(database)
  )
