/**
 * Versioned schema migrations, applied at start with effect's SQL `Migrator`.
 *
 * Migrations live in code (a record keyed `<id>_<name>`), the same SQL for PGlite and PostgreSQL.
 * The migrator records applied ids in `effect_sql_migrations`, runs only newer ones, in one
 * transaction, and takes an exclusive lock on that table, so two instances starting together
 * apply each migration once. Never edit a released migration; add the next one.
 *
 * This uses `Migrator.make` from `effect/sql` directly (what `PgMigrator` wraps): `PgMigrator`
 * additionally requires file-system and child-process services for its optional `pg_dump`
 * schema dump, which the service does not use.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import * as Init from "./migrations/0001_init.ts"
import * as Quotes from "./migrations/0003_quotes.ts"
import * as Executor from "./migrations/0004_executor.ts"
import * as BuyerData from "./migrations/0005_buyer_data.ts"
import * as Payouts from "./migrations/0006_payouts.ts"
import * as IdempotencyLease from "./migrations/0007_idempotency_lease.ts"
import * as PartnerEvents from "./migrations/0008_partner_events.ts"
import * as AppRevocation from "./migrations/0009_app_revocation.ts"
import * as ChainReceipts from "./migrations/0010_chain_receipts.ts"
import * as ReceiptRefunds from "./migrations/0011_receipt_refunds.ts"
import * as DashboardSessions from "./migrations/0012_dashboard_sessions.ts"
import * as DepositAddresses from "./migrations/0013_deposit_addresses.ts"
import * as DeliveryResponses from "./migrations/0014_delivery_responses.ts"
import * as TransfersOnce from "./migrations/0015_transfers_once.ts"
import * as RefundLegs from "./migrations/0016_refund_legs.ts"
import * as SignInAttempts from "./migrations/0017_sign_in_attempts.ts"
import * as ReceiptReversals from "./migrations/0018_receipt_reversals.ts"
import * as Ledger from "./migrations/0019_ledger.ts"
import * as LedgerOpening from "./migrations/0020_ledger_opening.ts"
import * as GasSpent from "./migrations/0021_gas_spent.ts"
import * as PaymentLinks from "./migrations/0022_payment_links.ts"
import * as PartialRefunds from "./migrations/0023_partial_refunds.ts"
import * as Team from "./migrations/0024_team.ts"
import * as ChainCheckpoints from "./migrations/0025_chain_checkpoints.ts"
import * as SettlementLegs from "./migrations/0026_settlement_legs.ts"
import * as RefundClaims from "./migrations/0027_refund_claims.ts"
import * as PayoutLimits from "./migrations/0028_payout_limits.ts"
import * as DestinationDelay from "./migrations/0029_destination_delay.ts"
import * as ReversedReceipts from "./migrations/0030_reversed_receipts.ts"
import * as EventsWithoutPayment from "./migrations/0031_events_without_payment.ts"
import * as SignerNonces from "./migrations/0032_signer_nonces.ts"
import * as SizeIndexes from "./migrations/0033_size_indexes.ts"
import * as Subscriptions from "./migrations/0034_subscriptions.ts"
import * as Plans from "./migrations/0035_plans.ts"
import * as SubscriptionChanges from "./migrations/0036_subscription_changes.ts"
import * as HeldPayments from "./migrations/0037_held_payments.ts"
import * as DepositSweepsByPayment from "./migrations/0038_deposit_sweeps_by_payment.ts"
import * as Webhooks from "./migrations/0002_webhooks.ts"

const runStatements = (statements: ReadonlyArray<string>): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const statement of statements) yield* sql.unsafe(statement)
  })

/** Every migration, keyed `<id>_<name>`. */
export const migrations: Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>> = {
  "0001_init": runStatements(Init.statements),
  "0002_webhooks": runStatements(Webhooks.statements),
  "0003_quotes": runStatements(Quotes.statements),
  "0004_executor": runStatements(Executor.statements),
  "0005_buyer_data": runStatements(BuyerData.statements),
  "0006_payouts": runStatements(Payouts.statements),
  "0007_idempotency_lease": runStatements(IdempotencyLease.statements),
  "0008_partner_events": runStatements(PartnerEvents.statements),
  "0009_app_revocation": runStatements(AppRevocation.statements),
  "0010_chain_receipts": runStatements(ChainReceipts.statements),
  "0011_receipt_refunds": runStatements(ReceiptRefunds.statements),
  "0012_dashboard_sessions": runStatements(DashboardSessions.statements),
  "0013_deposit_addresses": runStatements(DepositAddresses.statements),
  "0014_delivery_responses": runStatements(DeliveryResponses.statements),
  "0015_transfers_once": runStatements(TransfersOnce.statements),
  "0016_refund_legs": runStatements(RefundLegs.statements),
  "0017_sign_in_attempts": runStatements(SignInAttempts.statements),
  "0018_receipt_reversals": runStatements(ReceiptReversals.statements),
  "0019_ledger": runStatements(Ledger.statements),
  "0020_ledger_opening": runStatements(LedgerOpening.statements),
  "0021_gas_spent": runStatements(GasSpent.statements),
  "0022_payment_links": runStatements(PaymentLinks.statements),
  "0023_partial_refunds": runStatements(PartialRefunds.statements),
  "0024_team": runStatements(Team.statements),
  "0025_chain_checkpoints": runStatements(ChainCheckpoints.statements),
  "0026_settlement_legs": runStatements(SettlementLegs.statements),
  "0027_refund_claims": runStatements(RefundClaims.statements),
  "0028_payout_limits": runStatements(PayoutLimits.statements),
  "0029_destination_delay": runStatements(DestinationDelay.statements),
  "0030_reversed_receipts": runStatements(ReversedReceipts.statements),
  "0031_events_without_payment": runStatements(EventsWithoutPayment.statements),
  "0032_signer_nonces": runStatements(SignerNonces.statements),
  "0033_size_indexes": runStatements(SizeIndexes.statements),
  "0034_subscriptions": runStatements(Subscriptions.statements),
  "0035_plans": runStatements(Plans.statements),
  "0036_subscription_changes": runStatements(SubscriptionChanges.statements),
  "0037_held_payments": runStatements(HeldPayments.statements),
  "0038_deposit_sweeps_by_payment": runStatements(DepositSweepsByPayment.statements)
}

/** The table recording applied migrations. */
export const migrationsTable = "effect_sql_migrations"

/**
 * Whether the database can take traffic, checked over the `SqlClient` it is built with: it answers
 * within 2 seconds and every migration the code knows is applied. The check answers the number
 * applied, else why not.
 */
export const readiness: Effect.Effect<Effect.Effect<number, string>, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => {
    const expected = Object.keys(migrations).length
    return sql<{ readonly applied: string | number }>`SELECT count(*) AS applied FROM ${sql(migrationsTable)}`.pipe(
      Effect.timeout("2 seconds"),
      Effect.mapError(() => "the database does not answer"),
      Effect.flatMap((rows) => {
        const applied = Number(rows[0]?.applied ?? 0)
        return applied >= expected
          ? Effect.succeed(applied)
          : Effect.fail(`${applied} of ${expected} migrations applied`)
      })
    )
  }
)

const migrate = Migrator.make({})

/** Applies pending migrations; answers the `[id, name]` of those it applied (empty when up to date). */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = migrate({ loader: Migrator.fromRecord(migrations), table: migrationsTable })

/** Applies pending migrations when the layer is built, and logs those it applied. */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> = Layer.effectDiscard(
  Effect.gen(function*() {
    const applied = yield* run
    if (applied.length > 0) yield* Effect.logInfo("migrations applied", { migrations: applied.map(([id, name]) => `${id}_${name}`) })
  })
)
