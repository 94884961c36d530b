/**
 * The application: the domain's use cases over the adapters, over one database. Every entrypoint
 * (API, worker, all-in-one, admin CLI) and every test host builds on it: with the entrypoints
 * beside it, the composition root is the one place that puts the packages' layers together.
 *
 * @module
 */
import {
  Executions,
  IdGenerator,
  Merchants,
  PaymentLinks,
  PaymentRefunds,
  Payments,
  PayoutApprovals,
  PayoutRetries,
  ReceiptRefunds,
  Exports,
  Receipts,
  ReceiptReversals,
  Reconciliation,
  RefundClaims,
  Refunds,
  Settlements,
  WebhookDispatch,
  Webhooks
} from "@paygate/domain"
import { Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import {
  Chain,
  CheckoutSettings,
  ConfiguredExecutionPolicy,
  ConfiguredPaymentSettings,
  ConfiguredSettlementDelay,
  CredentialAdmin,
  CredentialCache,
  Database,
  GatewayServices,
  PooledRandom,
  Pricing,
  SqlChainWork,
  SqlPersistence,
  SqlQuoteStore,
  WebhookAdapters,
  WorkerPorts
} from "@paygate/adapters"

/** The use cases the HTTP API serves. */
const UseCases = Layer.mergeAll(
  PaymentLinks.layer.pipe(Layer.provideMerge(Payments.layer)),
  Merchants.layer,
  Settlements.layer,
  Refunds.layer,
  PaymentRefunds.layer,
  RefundClaims.layer.pipe(Layer.provide(Refunds.layer)),
  PayoutRetries.layer,
  PayoutApprovals.layer,
  Receipts.layer,
  ReceiptRefunds.layer,
  Exports.layer
)

/** Webhook endpoints, deliveries and redelivery (API rules §6), their adapters and settings from configuration. */
const WebhookServices = Webhooks.layer.pipe(Layer.provideMerge(WebhookAdapters.layerFromConfig))

/**
 * Everything the API needs, over one database: use cases, SQL stores (with the credential cache),
 * credentials admin, the public addresses (`CheckoutSettings`), and the gateway's options over the
 * configured chains (`GatewayServices`). The database layer decides embedded vs PostgreSQL.
 */
export const layer = <E, R>(
  database: Layer.Layer<SqlClient.SqlClient, E, R>,
  /** Chains, option id secret and sanctions list of the gateway's options; default from configuration. */
  gateway: Layer.Layer<GatewayServices.GatewaySettings, GatewayServices.GatewayConfigError> = GatewayServices.settingsFromConfig
) => layerWith(database, gateway)

/**
 * {@link layer} with any gateway settings layer, e.g. a local anvil chain for development:
 * `layerWith(Database.layer, GatewayServices.settingsFromConfigWith(Chain.LocalChain.layer()))`.
 */
export const layerWith = <E, R, GE, GR>(
  database: Layer.Layer<SqlClient.SqlClient, E, R>,
  gateway: Layer.Layer<GatewayServices.GatewaySettings, GE, GR>
) =>
  GatewayServices.layer.pipe(
    Layer.provideMerge(gateway),
    Layer.provideMerge(
      Layer.mergeAll(UseCases, CredentialAdmin.layer, CheckoutSettings.layer).pipe(
        // Which currencies a payment can be created in, read when Payments is built (and the tokens' decimals of
        // the exports); from the same (memoized) gateway settings, built after the database (its lock refuses a second start first).
        Layer.provide(
          Layer.mergeAll(Pricing.ConfiguredCurrencies.layer, Chain.ChainNetworkModes.layer, Chain.ChainAssetCatalog.layer).pipe(Layer.provide(gateway))
        ),
        Layer.provide(Layer.mergeAll(ConfiguredSettlementDelay.layer, ConfiguredPaymentSettings.layer)),
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

/**
 * What the worker's jobs (`@paygate/worker` `Jobs`) run on: their use cases (webhook dispatch,
 * payments, executions, reconciliation and its reversals), the SQL ports, the payout ports (`WorkerPorts.payoutPorts`), the
 * deposit sweeper (through the process's executor senders), the webhook adapters and settings from
 * configuration (`WEBHOOK_*`, `PAYGATE_DATA_DIR` for the local key) and the chains' explorer links
 * of the payment records webhooks carry; given the `SqlClient` (migrated), the `ChainGateway` (one
 * per process: it holds each executor account's nonce sequence) and the chain configuration.
 */
export const workerServices = Layer.mergeAll(
  Executions.layer.pipe(Layer.provide(ConfiguredExecutionPolicy.layer)),
  Reconciliation.layer,
  ReceiptReversals.layer
).pipe(
  Layer.provideMerge(Layer.mergeAll(WebhookDispatch.layer, Payments.layer)),
  Layer.provideMerge(WebhookAdapters.layerFromConfig),
  Layer.provideMerge(Layer.mergeAll(SqlPersistence.layer, SqlChainWork.layer, SqlQuoteStore.layer, WorkerPorts.payoutPorts, Chain.ViemDepositSweeper.layer)),
  Layer.provideMerge(Layer.mergeAll(IdGenerator.layer, WebhookAdapters.CachedHmac.layer)),
  Layer.provide(PooledRandom.layer),
  Layer.provideMerge(Chain.ChainExplorers.layer)
)

/**
 * What the operator CLI (`@paygate/cli`) runs on: credentials admin, merchants, the retries of failed
 * settlements, refunds and receipt refunds, the approvals of payouts held over a limit, and the SQL
 * stores, over the operator's database (`DATABASE_URL`, else the embedded PGlite, through the running
 * service's socket when it runs: `Database.layerForOperator`).
 */
export const operator = Layer.mergeAll(
  CredentialAdmin.layer,
  Merchants.layer,
  PayoutRetries.layer,
  PayoutApprovals.layer,
  ReceiptRefunds.layer
).pipe(
  Layer.provideMerge(Layer.mergeAll(SqlPersistence.layer, IdGenerator.layer)),
  Layer.provide(SecureRandom.layerWebCrypto),
  Layer.provideMerge(Database.layerForOperator)
)
