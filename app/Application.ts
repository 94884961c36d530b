/**
 * The application: the domain's use cases over the adapters, over one database. Every entrypoint
 * (API, worker, all-in-one, admin CLI) and every test host builds on it: with the entrypoints
 * beside it, the composition root is the one place that puts the packages' layers together.
 *
 * @module
 */
import {
  CheckoutAmounts,
  ConfirmRequests,
  DataCollection,
  DataCollectionPage,
  DepositOptions,
  DepositSweeps,
  Executions,
  IdGenerator,
  Merchants,
  OptionIds,
  PaymentCommitments,
  PaymentLinks,
  PaymentOptions,
  PaymentRefunds,
  Payments,
  Plans,
  PayoutApprovals,
  PayoutExecutions,
  PayoutRetries,
  ReceiptRefundExecutions,
  ReceiptRefunds,
  Exports,
  Receipts,
  ReceiptReversals,
  Reconciliation,
  RefundClaims,
  Refunds,
  SettlementDecisions,
  Settlements,
  SubscriptionCharges,
  HoldExecutions,
  Holds,
  Subscriptions,
  SubscriptionTokens,
  WebhookDispatch,
  Webhooks,
  X402Facilitator,
  X402PaymentAddress
} from "@paygate/domain"
import { Effect, Layer } from "effect"
import { Mac } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import {
  AjvBuyerDataValidator,
  CachedHmac,
  Chain,
  ConfiguredExecutionPolicy,
  ConfiguredPaymentSettings,
  ConfiguredPayoutPolicy,
  ConfiguredSettlementDelay,
  CredentialAdmin,
  CredentialCache,
  GatewayServices,
  Invitations,
  Passwords,
  PooledRandom,
  Pricing,
  Sha256SecretDigest,
  SqlBuyerDataStore,
  SqlChainWork,
  SqlDataCollectionThresholds,
  SqlDepositStore,
  SqlPersistence,
  SqlQuoteStore,
  SqlPlanRepository,
  SqlReceiptStore,
  SqlSubscriptionRepository,
  WebhookAdapters,
  WorkerPorts
} from "@paygate/adapters"
import { CheckoutSettings } from "@paygate/http"
import * as ApiHost from "./ApiHost.ts"

// A service whose tokens are sealed with the gateway settings' secret (each kind under its own prefix),
// tagged on node:crypto: every options request seals an id per option, every confirm opens one.
const sealedWith = <S>(layer: (key: Uint8Array) => Layer.Layer<S, never, Mac.Mac>) =>
  Layer.unwrap(Effect.map(GatewayServices.OptionIdSecret, ({ key }) => layer(key).pipe(Layer.provide(CachedHmac.layer))))

// The domain's option ids, and the subscriptions' offers and manage links.
const OptionIdsLive = sealedWith(OptionIds.layer)
const SubscriptionTokensLive = sealedWith(SubscriptionTokens.layer)

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
  Exports.layer,
  Holds.layer
)

/** Webhook endpoints, deliveries and redelivery (API rules §6), their adapters and settings from configuration. */
const WebhookServices = Webhooks.layer.pipe(Layer.provideMerge(WebhookAdapters.layerFromConfig))

/**
 * Buyer data collection: data on SQL (encrypted with the `AtRestCipher`), validated with ajv,
 * partner thresholds from the partners table, the page at `CheckoutSettings.dataCollectionUrl`.
 */
const dataCollection = DataCollection.layer.pipe(Layer.provide(Layer.mergeAll(
  SqlBuyerDataStore.layer,
  SqlDataCollectionThresholds.layer,
  AjvBuyerDataValidator.layer,
  Layer.effect(DataCollectionPage, Effect.map(CheckoutSettings, (s) => DataCollectionPage.of({ url: s.dataCollectionUrl })))
)))

/**
 * The gateway's use cases (options, deposit options, confirm, x402, data collection) with their
 * adapters over the gateway settings, the payments and the database; exposes the `ChainGateway`
 * and the `WalletActions` too (`/fetch` serves an option's actions again).
 */
const GatewayUseCases = Layer.mergeAll(
  PaymentOptions.layer,
  CheckoutAmounts.layer,
  DepositOptions.layer.pipe(Layer.provide(Layer.mergeAll(Chain.ChainDeposits.layer, SqlDepositStore.layer, SqlReceiptStore.layer))),
  ConfirmRequests.layer.pipe(Layer.provide(PaymentCommitments.layer)),
  X402Facilitator.layer.pipe(Layer.provide(Pricing.ConfiguredCurrencies.layer)),
  X402PaymentAddress.layer.pipe(Layer.provide(PaymentCommitments.layer)),
  // Plans and subscribing: the subscription contracts are read (permits), never sent to, by the API.
  Layer.mergeAll(Plans.layer, Subscriptions.layer).pipe(
    Layer.provide(Layer.mergeAll(SqlPlanRepository.layer, SqlSubscriptionRepository.layer, Chain.ViemSubscriptionChain.layer, SubscriptionTokensLive))
  ),
  // Held payments' captures and voids (the escrow, sending as the executor through the process's senders).
  Chain.ViemEscrowChain.layer
).pipe(
  Layer.provideMerge(dataCollection),
  Layer.provideMerge(GatewayServices.chainGateway),
  Layer.provide(Layer.mergeAll(
    Chain.ChainAssetCatalog.layer,
    Chain.ChainNetworkModes.layer,
    Pricing.ConfiguredPriceOracle.layer,
    SqlQuoteStore.layer,
    PooledRandom.layer
  )),
  Layer.provideMerge(Chain.Eip155WalletActions.layer),
  // The chains' explorer links of payment records, and the configured tokens and networks the checkout and the dashboard show.
  Layer.provideMerge(Layer.mergeAll(Chain.ChainExplorers.layer, Chain.ChainAssetCatalog.layer, Chain.ChainConfiguredNetworks.layer))
)


/**
 * Everything the API needs, over one database: use cases, SQL stores (with the credential cache),
 * credentials admin, team invitations, passwords and the secrets' digest, the public addresses
 * (`CheckoutSettings`), and the gateway's use cases over the configured chains (`GatewayServices`
 * settings). The database layer decides embedded vs PostgreSQL.
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
  GatewayUseCases.pipe(
    Layer.provideMerge(OptionIdsLive),
    Layer.provideMerge(gateway),
    Layer.provideMerge(
      Layer.mergeAll(UseCases, CredentialAdmin.layer, Invitations.layer, Passwords.layer, Sha256SecretDigest.layer, ApiHost.checkoutSettings).pipe(
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
 * payments, executions, reconciliation and its reversals, payouts and their decisions, receipt
 * refunds, deposit sweeps, subscription charges), the SQL ports, the payout ports
 * (`WorkerPorts.payoutPorts`), the deposit sweeper (through the process's executor senders), the
 * chains the watcher and the ledger's reconciliation read (`ViemWatchedChains`), the chains with
 * deposit addresses (`ChainDeposits`: the sweeps run when there are some), the subscription vaults
 * (`ViemSubscriptionChain`, sending through the same senders: the subscription job runs when a chain
 * has one), the payment escrows (`ViemEscrowChain`, likewise: held payments' captures and voids), the webhook adapters and settings from configuration
 * (`WEBHOOK_*`, `PAYGATE_DATA_DIR` for the local key) and the chains' explorer links of the payment
 * records webhooks carry; given the `SqlClient` (migrated), the `ChainGateway` (one
 * per process: it holds each executor account's nonce sequence) and the chain configuration.
 */
export const workerServices = Layer.mergeAll(
  Executions.layer.pipe(Layer.provide(ConfiguredExecutionPolicy.layer)),
  Reconciliation.layer,
  ReceiptReversals.layer,
  Layer.mergeAll(PayoutExecutions.layer, SettlementDecisions.layer, ReceiptRefundExecutions.layer).pipe(Layer.provide(ConfiguredPayoutPolicy.layer)),
  DepositSweeps.layer,
  SubscriptionCharges.layer,
  HoldExecutions.layer
).pipe(
  Layer.provideMerge(Layer.mergeAll(WebhookDispatch.layer, Payments.layer)),
  Layer.provideMerge(WebhookAdapters.layerFromConfig),
  Layer.provideMerge(Layer.mergeAll(
    Chain.ViemWatchedChains.layer,
    Chain.ChainDeposits.layer,
    // The worker never checks a permit's signature (the API did), so recovery runs inline.
    Chain.ViemSubscriptionChain.layer.pipe(Layer.provide(Chain.SignatureRecovery.layerInline)),
    Chain.ViemEscrowChain.layer
  )),
  Layer.provideMerge(Layer.mergeAll(
    SqlPersistence.layer,
    SqlChainWork.layer,
    SqlChainWork.layerHolds,
    SqlQuoteStore.layer,
    SqlSubscriptionRepository.layer,
    WorkerPorts.payoutPorts,
    Chain.ViemDepositSweeper.layer
  )),
  Layer.provideMerge(Layer.mergeAll(IdGenerator.layer, CachedHmac.layer)),
  Layer.provide(PooledRandom.layer),
  Layer.provideMerge(Chain.ChainExplorers.layer)
)
