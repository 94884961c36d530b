import { Migrations } from "@paygate/adapters"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"

const tables = [
  "api_keys",
  "apps",
  "audit_log",
  "buyer_data",
  "chain_checkpoints",
  "chain_cursors",
  "chain_quarantine",
  "chain_receipts",
  "crypto_settlements",
  "dashboard_sessions",
  "deposit_addresses",
  "deposit_sweeps",
  "effect_sql_migrations",
  "gas_spent",
  "idempotency_keys",
  "ledger_accounts",
  "ledger_balances",
  "ledger_entries",
  "ledger_reconciliations",
  "ledger_transactions",
  "merchants",
  "outbox_events",
  "partners",
  "payment_link_visits",
  "payment_links",
  "payments",
  "payouts",
  "plans",
  "quotes",
  "refund_claims",
  "refunds",
  "sign_in_attempts",
  "signer_nonces",
  "subscription_charges",
  "subscriptions",
  "team_invitations",
  "team_members",
  "webhook_deliveries",
  "webhook_endpoints"
]

// From an empty database: the suite's layer applies every migration.
adapterSuite("Migrations", (it) => {
  it.effect("creates every table once, and applying again changes nothing", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // The suite's layer already applied them; both further runs find nothing to do.
      assert.deepStrictEqual(yield* Migrations.run, [])
      assert.deepStrictEqual(yield* Migrations.run, [])
      const applied = yield* sql<{ readonly migration_id: number; readonly name: string }>`
        SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`
      assert.deepStrictEqual(
        applied.map((row) => [row.migration_id, row.name]),
        Object.keys(Migrations.migrations).map((key) => [Number(key.slice(0, 4)), key.slice(5)])
      )
      const found = yield* sql<{ readonly table_name: string }>`
        SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() ORDER BY table_name`
      assert.deepStrictEqual(found.map((row) => row.table_name), tables)
    }))

  it.effect("every migration is in the record, numbered from 0001 without gaps", () =>
    Effect.sync(() => {
      const ids = Object.keys(Migrations.migrations).map((key) => Number(key.slice(0, 4)))
      assert.deepStrictEqual(ids, ids.map((_, index) => index + 1))
    }))
}, "empty")
