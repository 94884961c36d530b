/**
 * `LedgerBalances` on SQL: balances are the `ledger_balances` view (sums of the entries, migration
 * 0019), never a stored column; reconciliation reports are rows of `ledger_reconciliations`. An
 * account's balance is signed as posted (a debit positive): what an address holds is its balance,
 * what is owed (to a merchant) its negation. Database failures are defects.
 *
 * @module
 */
import { LedgerBalances, type Mode, type ReconciliationLine, traced } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"

const spans = {
  merchantBalances: traced("SqlLedgerBalances.merchantBalances"),
  addressBalances: traced("SqlLedgerBalances.addressBalances"),
  recordReconciliation: traced("SqlLedgerBalances.recordReconciliation"),
  latestReconciliation: traced("SqlLedgerBalances.latestReconciliation")
}

interface LineRow {
  readonly run_at: unknown
  readonly chain_id: string
  readonly asset: string
  readonly kind: "collection" | "deposit"
  readonly address: string
  readonly block_number: unknown
  readonly ledger_balance: string
  readonly chain_balance: string
}

/** Builds the port over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const merchantBalances = (partnerId: string, mode: Mode) =>
    sql<{ readonly merchant_id: string; readonly asset: string; readonly balance: string }>`
      SELECT merchant_id, asset, balance::text AS balance FROM ledger_balances
      WHERE kind = 'merchant' AND partner_id = ${partnerId} AND mode = ${mode}
      ORDER BY merchant_id, asset`.pipe(
      Effect.map((rows) => rows.map((row) => ({ merchantId: row.merchant_id, asset: row.asset, owed: -BigInt(row.balance) }))),
      Effect.orDie,
      spans.merchantBalances
    )

  const addressBalances = (chainId: string) =>
    sql<{ readonly mode: Mode; readonly kind: "collection" | "deposit"; readonly asset: string; readonly address: string | null; readonly balance: string }>`
      SELECT mode, kind, asset, address, balance::text AS balance FROM ledger_balances
      WHERE chain_id = ${chainId} AND kind IN ('collection', 'deposit')
      ORDER BY kind, asset, address`.pipe(
      Effect.map((rows) => rows.map((row) => ({ mode: row.mode, kind: row.kind, asset: row.asset, address: row.address, held: BigInt(row.balance) }))),
      Effect.orDie,
      spans.addressBalances
    )

  const recordReconciliation = (runAt: number, lines: ReadonlyArray<ReconciliationLine>) =>
    Effect.forEach(lines, (l) =>
      sql`INSERT INTO ledger_reconciliations (run_at, chain_id, asset, kind, address, block_number, ledger_balance, chain_balance)
        VALUES (${runAt}::bigint, ${l.chainId}, ${l.asset}, ${l.kind}, ${l.address.toLowerCase()}, ${l.blockNumber}::bigint,
          ${l.ledger.toString()}::numeric, ${l.chain.toString()}::numeric)`, { discard: true }).pipe(
      sql.withTransaction,
      Effect.orDie,
      spans.recordReconciliation
    )

  const latestReconciliation = sql<LineRow>`SELECT r.run_at, r.chain_id, r.asset, r.kind, r.address, r.block_number,
      r.ledger_balance::text AS ledger_balance, r.chain_balance::text AS chain_balance
    FROM ledger_reconciliations r
    WHERE r.run_at = (SELECT max(run_at) FROM ledger_reconciliations l WHERE l.chain_id = r.chain_id)
    ORDER BY r.chain_id, r.kind, r.asset, r.address`.pipe(
    Effect.map((rows) =>
      rows.map((row) => ({
        runAt: toInt(row.run_at),
        chainId: row.chain_id,
        asset: row.asset,
        kind: row.kind,
        address: row.address,
        blockNumber: toInt(row.block_number),
        ledger: BigInt(row.ledger_balance),
        chain: BigInt(row.chain_balance)
      }))
    ),
    Effect.orDie,
    spans.latestReconciliation
  )

  return LedgerBalances.of({ merchantBalances, addressBalances, recordReconciliation, latestReconciliation })
})

/** `LedgerBalances` over the `SqlClient` in context. */
export const layer: Layer.Layer<LedgerBalances, never, SqlClient.SqlClient> = Layer.effect(LedgerBalances, make)
