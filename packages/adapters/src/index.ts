/**
 * @paygate/adapters: implementations of the domain's ports. PostgreSQL through `@effect/sql-pg`
 * (an embedded PGlite by default), plus credential administration, passwords and invitations.
 *
 * A host wires the database with `SqlPersistence.layerFromConfig`, which is:
 *
 * ```ts
 * SqlPersistence.layer.pipe(
 *   Layer.provideMerge(Migrations.layer),
 *   Layer.provideMerge(Database.layer) // DATABASE_URL, else embedded PGlite in PAYGATE_DATA_DIR
 * )
 * ```
 *
 * Adapter modules are namespaces with a `layer` each (`SqlPaymentRepository.layer`, ...).
 *
 * @module
 */
export * as AjvBuyerDataValidator from "./AjvBuyerDataValidator.ts"
export * from "./ApiKeySecret.ts"
export * as CachedHmac from "./CachedHmac.ts"
export * as Configuration from "./Configuration.ts"
export * as ConfiguredExecutionPolicy from "./ConfiguredExecutionPolicy.ts"
export * as ConfiguredPayoutPolicy from "./ConfiguredPayoutPolicy.ts"
export * as ConfiguredPaymentSettings from "./ConfiguredPaymentSettings.ts"
export * as ConfiguredSettlementDelay from "./ConfiguredSettlementDelay.ts"
export * from "./CredentialAdmin.ts"
export * as Invitations from "./Invitations.ts"
export * from "./LedgerOpener.ts"
export * from "./CredentialCache.ts"
export * as DataDirLock from "./DataDirLock.ts"
export * as FailureLine from "./FailureLine.ts"
export * as PrivateFiles from "./PrivateFiles.ts"
export * from "./ExclusiveSequences.ts"
export * as Database from "./Database.ts"
export * as GatewayServices from "./GatewayServices.ts"
export * as HumanLogger from "./HumanLogger.ts"
export * as JsonLogger from "./JsonLogger.ts"
export * as LogOutput from "./LogOutput.ts"
export * as Migrations from "./Migrations.ts"
export * as PooledRandom from "./PooledRandom.ts"
export * as SqlChainWork from "./SqlChainWork.ts"
export * as SqlBuyerDataStore from "./SqlBuyerDataStore.ts"
export * as SqlCredentialStore from "./SqlCredentialStore.ts"
export * as SqlDashboardSessionStore from "./SqlDashboardSessionStore.ts"
export * as SqlTeamStore from "./SqlTeamStore.ts"
export * as Passwords from "./Passwords.ts"
export * as SqlSignInThrottleStore from "./SqlSignInThrottleStore.ts"
export * as SqlDataCollectionThresholds from "./SqlDataCollectionThresholds.ts"
export * as SqlDepositStore from "./SqlDepositStore.ts"
export * as SqlEventOutbox from "./SqlEventOutbox.ts"
export * as SqlIdempotencyStore from "./SqlIdempotencyStore.ts"
export * as SqlLedgerBalances from "./SqlLedgerBalances.ts"
export * as SqlLedgerOpening from "./SqlLedgerOpening.ts"
export * as SqlExportSource from "./SqlExportSource.ts"
export * as SqlMerchantRepository from "./SqlMerchantRepository.ts"
export * as SqlPaymentRepository from "./SqlPaymentRepository.ts"
export * as SqlPayoutRepository from "./SqlPayoutRepository.ts"
export * as SqlPayoutLimits from "./SqlPayoutLimits.ts"
export * as SqlPayoutWork from "./SqlPayoutWork.ts"
export * as SqlPlanRepository from "./SqlPlanRepository.ts"
export * as SqlQuoteStore from "./SqlQuoteStore.ts"
export * as SqlReceiptStore from "./SqlReceiptStore.ts"
export * as SanctionsList from "./SanctionsList.ts"
export * as Sha256SecretDigest from "./Sha256SecretDigest.ts"
export * as SqlPersistence from "./SqlPersistence.ts"
export * as SqlRefundClaimStore from "./SqlRefundClaimStore.ts"
export * as SqlRefundRepository from "./SqlRefundRepository.ts"
export * as SqlPaymentVolume from "./SqlPaymentVolume.ts"
export * as SqlSettlementRepository from "./SqlSettlementRepository.ts"
export * as SqlSubscriptionRepository from "./SqlSubscriptionRepository.ts"
export * as SqlStoredCounts from "./SqlStoredCounts.ts"
export * as WebhookAdapters from "./webhooks/index.ts"
export * as WorkerPorts from "./WorkerPorts.ts"
export * as Chain from "./chain/index.ts"
export * as Pricing from "./pricing/index.ts"
export * as Preflight from "./Preflight.ts"
