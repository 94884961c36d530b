/**
 * `LedgerBalances` on SQL: balances are the `ledger_balances` view (sums of the entries, migration
 * 0019), never a stored column; reconciliation reports are rows of `ledger_reconciliations`. An
 * account's balance is signed as posted (a debit positive): what an address holds is its balance,
 * what is owed (to a merchant) its negation. Database failures are defects.
 *
 * @module
 */
import {
  type BalanceStatement,
  LedgerBalances,
  type Mode,
  type ReconciliationLine,
  type StatementPageQuery,
  statementAddsUp,
  traced
} from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { toInt } from "./internal/Rows.ts"
import * as LedgerAuditQueries from "./internal/LedgerAuditQueries.ts"

const spans = {
  merchantBalances: traced("SqlLedgerBalances.merchantBalances"),
  statements: traced("SqlLedgerBalances.statements"),
  addressBalances: traced("SqlLedgerBalances.addressBalances"),
  recordReconciliation: traced("SqlLedgerBalances.recordReconciliation"),
  latestReconciliation: traced("SqlLedgerBalances.latestReconciliation"),
  audit: traced("SqlLedgerBalances.audit")
}

interface StatementRow {
  readonly merchant_id: string
  readonly asset: string
  readonly opening: string
  readonly received: string
  readonly reversed: string
  readonly settled: string
  readonly refunded: string
  readonly closing: string
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

  // The partner's accounts in (merchant, token) order (the owner index), each summed on its own
  // entries (the account index) up to `to`: a page stops after `limit` accounts. Owed is the
  // negation of the posted balance (a merchant's account is a credit). Closing is summed apart from
  // the movements, so an entry of a kind the statement does not know shows as a defect, not a wrong file.
  const statements = (q: StatementPageQuery) => {
    const merchant = q.merchantId === undefined ? sql`TRUE` : sql`merchant_id = ${q.merchantId}`
    const after = q.after === null ? sql`TRUE` : sql`(merchant_id, asset) > (${q.after.merchantId}::text COLLATE "C", ${q.after.asset}::text COLLATE "C")`
    const moved = (condition: Fragment) =>
      sql`(-coalesce(sum(e.amount) FILTER (WHERE t.posted_at >= ${q.fromMillis}::bigint AND ${condition}), 0))::text`
    return sql<StatementRow>`SELECT a.merchant_id, a.asset, s.opening, s.received, s.reversed, s.settled, s.refunded, s.closing
      FROM (SELECT id, merchant_id, asset FROM ledger_accounts
        WHERE partner_id = ${q.partnerId} AND mode = ${q.mode} AND kind = 'merchant' AND ${merchant} AND ${after}
        ORDER BY merchant_id, asset) a
      CROSS JOIN LATERAL (SELECT
          (-coalesce(sum(e.amount) FILTER (WHERE t.posted_at < ${q.fromMillis}::bigint), 0))::text AS opening,
          ${moved(sql`t.source = 'receipt'`)} AS received,
          ${moved(sql`t.source = 'receipt_reversal'`)} AS reversed,
          ${moved(sql`t.source = 'payout' AND t.source_id LIKE '%:settlement:%'`)} AS settled,
          ${moved(sql`t.source = 'payout' AND t.source_id LIKE '%:refund:%'`)} AS refunded,
          (-coalesce(sum(e.amount), 0))::text AS closing,
          count(*) FILTER (WHERE t.posted_at >= ${q.fromMillis}::bigint) AS entries
        FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE e.account_id = a.id AND t.posted_at < ${q.toMillis}::bigint) s
      WHERE s.opening <> '0' OR s.entries > 0
      ORDER BY a.merchant_id, a.asset LIMIT ${q.limit}`.pipe(
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (r) => {
          const statement: BalanceStatement = {
            merchantId: r.merchant_id,
            asset: r.asset,
            opening: BigInt(r.opening),
            received: BigInt(r.received),
            reversed: BigInt(r.reversed),
            settled: BigInt(r.settled),
            refunded: BigInt(r.refunded),
            closing: BigInt(r.closing)
          }
          return statementAddsUp(statement)
            ? Effect.succeed(statement)
            : Effect.die(new Error(`merchant ${r.merchant_id}'s ledger account in ${r.asset} has entries of a kind no statement column holds`))
        })
      ),
      Effect.orDie,
      spans.statements
    )
  }

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

  const audit = LedgerAuditQueries.audit.pipe(Effect.provideService(SqlClient.SqlClient, sql), spans.audit)

  return LedgerBalances.of({ merchantBalances, statements, addressBalances, recordReconciliation, latestReconciliation, audit })
})

/** `LedgerBalances` over the `SqlClient` in context. */
export const layer: Layer.Layer<LedgerBalances, never, SqlClient.SqlClient> = Layer.effect(LedgerBalances, make)
