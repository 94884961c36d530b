/**
 * Every persistence port on SQL in one layer: payments and their outbox, merchants, settlement
 * destinations, refunds, payouts, idempotency keys, credentials, dashboard sessions and sign-in attempts, and the chain watcher's receipts and
 * cursors, deposit addresses with their sweeps, and the counts the metrics show.
 *
 * @module
 */
import type {
  CredentialStore,
  DashboardSessionStore,
  DepositStore,
  EventOutbox,
  IdempotencyStore,
  ExportSource,
  LedgerBalances,
  MerchantRepository,
  PaymentLinkRepository,
  PaymentRepository,
  PaymentVolume,
  PayoutRepository,
  ReceiptStore,
  RefundClaimStore,
  RefundRepository,
  ScanCursors,
  SettlementRepository,
  SignInThrottleStore,
  StoredCounts,
  TeamStore
} from "@paygate/domain"
import type { PgClient } from "@effect/sql-pg"
import { type Config, Layer } from "effect"
import type { Migrator, SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import * as Database from "./Database.ts"
import * as Migrations from "./Migrations.ts"
import * as SqlCredentialStore from "./SqlCredentialStore.ts"
import * as SqlDashboardSessionStore from "./SqlDashboardSessionStore.ts"
import * as SqlDepositStore from "./SqlDepositStore.ts"
import * as SqlEventOutbox from "./SqlEventOutbox.ts"
import * as SqlIdempotencyStore from "./SqlIdempotencyStore.ts"
import * as SqlExportSource from "./SqlExportSource.ts"
import * as SqlLedgerBalances from "./SqlLedgerBalances.ts"
import * as SqlMerchantRepository from "./SqlMerchantRepository.ts"
import * as SqlPaymentLinkRepository from "./SqlPaymentLinkRepository.ts"
import * as SqlPaymentRepository from "./SqlPaymentRepository.ts"
import * as SqlPaymentVolume from "./SqlPaymentVolume.ts"
import * as SqlPayoutRepository from "./SqlPayoutRepository.ts"
import * as SqlReceiptStore from "./SqlReceiptStore.ts"
import * as SqlRefundClaimStore from "./SqlRefundClaimStore.ts"
import * as SqlRefundRepository from "./SqlRefundRepository.ts"
import * as SqlScanCursors from "./SqlScanCursors.ts"
import * as SqlSettlementRepository from "./SqlSettlementRepository.ts"
import * as SqlSignInThrottleStore from "./SqlSignInThrottleStore.ts"
import * as SqlStoredCounts from "./SqlStoredCounts.ts"
import * as SqlTeamStore from "./SqlTeamStore.ts"

/** Every persistence port the SQL adapters implement. */
export type Ports =
  | PaymentRepository
  | PaymentLinkRepository
  | PaymentVolume
  | EventOutbox
  | MerchantRepository
  | SettlementRepository
  | RefundRepository
  | RefundClaimStore
  | PayoutRepository
  | IdempotencyStore
  | CredentialStore
  | DashboardSessionStore
  | SignInThrottleStore
  | TeamStore
  | ReceiptStore
  | ScanCursors
  | DepositStore
  | LedgerBalances
  | ExportSource
  | StoredCounts

/** All SQL port adapters over the `SqlClient` in context (migrations are not run here). */
export const layer: Layer.Layer<Ports, Config.ConfigError, SqlClient.SqlClient> = Layer.mergeAll(
  SqlPaymentRepository.layer,
  SqlPaymentLinkRepository.layer,
  SqlPaymentVolume.layer,
  SqlEventOutbox.layer,
  SqlMerchantRepository.layer,
  SqlSettlementRepository.layer,
  SqlRefundRepository.layer,
  SqlRefundClaimStore.layer.pipe(Layer.provide(SqlRefundRepository.layer)),
  SqlPayoutRepository.layer,
  SqlIdempotencyStore.layer,
  SqlCredentialStore.layer,
  SqlDashboardSessionStore.layer,
  SqlSignInThrottleStore.layer,
  SqlTeamStore.layer,
  SqlReceiptStore.layer,
  SqlScanCursors.layer,
  SqlDepositStore.layer,
  SqlLedgerBalances.layer,
  SqlExportSource.layer,
  SqlStoredCounts.layer
)

/**
 * What a host usually wants: every port over the database from the environment (`DATABASE_URL`,
 * else the embedded PGlite in `PAYGATE_DATA_DIR`), migrated at start. Also exposes the clients.
 * Build it once per process: the embedded database can only be opened once.
 */
export const layerFromConfig: Layer.Layer<
  Ports | SqlClient.SqlClient | PgClient.PgClient,
  Config.ConfigError | Database.EmbeddedDatabaseError | SqlError | Migrator.MigrationError
> = layer.pipe(
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(Database.layer)
)
