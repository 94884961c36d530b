/**
 * The ledger against the service's records, in SQL (`LedgerBalances.audit`, see its report): each
 * check is one statement answering a line per disagreement. A full scan of the ledger and of the
 * receipts and payouts: run on demand (`paygate-admin ledger audit`, the tests), not on a schedule.
 *
 * @module
 */
import type { LedgerAuditReport } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./Rows.ts"

// What each movement left at the collection and deposit addresses, per posted source.
const held = (sql: SqlClient.SqlClient, source: string) =>
  sql`SELECT t.source_id, sum(e.amount) FILTER (WHERE a.kind IN ('collection', 'deposit')) AS held
    FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
    WHERE t.source = ${source} GROUP BY t.source_id`

/** Audits the ledger of the database in context. */
export const audit: Effect.Effect<LedgerAuditReport, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const lines = <A extends { readonly line: string }>(rows: ReadonlyArray<A>) => rows.map((row) => row.line)
  const unbalanced = yield* sql<{ readonly line: string }>`
    SELECT 'ledger transaction ' || transaction_id || ' does not balance in ' || asset || ' (off by ' || sum(amount) || ')' AS line
    FROM ledger_entries GROUP BY transaction_id, asset HAVING sum(amount) <> 0`
  const receipts = yield* sql<{ readonly line: string }>`
    SELECT 'receipt ' || r.id || ' brought ' || r.value || ' of ' || r.asset || '; the ledger holds ' || coalesce(p.held::text, 'nothing') AS line
    FROM chain_receipts r LEFT JOIN (${held(sql, "receipt")}) p ON p.source_id = r.id
    WHERE r.value <> 0 AND p.held IS DISTINCT FROM r.value`
  const reversals = yield* sql<{ readonly line: string }>`
    SELECT 'receipt ' || r.id || CASE WHEN r.reversed_at IS NULL THEN ' is on chain but its arrival was undone'
      ELSE ' was removed by a reorganisation but its arrival stands' END AS line
    FROM chain_receipts r LEFT JOIN (${held(sql, "receipt")}) p ON p.source_id = r.id
      LEFT JOIN (${held(sql, "receipt_reversal")}) v ON v.source_id = r.id
    WHERE (r.reversed_at IS NULL AND v.held IS NOT NULL) OR (r.reversed_at IS NOT NULL AND p.held IS NOT NULL AND v.held IS DISTINCT FROM -p.held)`
  const payouts = yield* sql<{ readonly line: string }>`
    SELECT 'payout ' || x.payment_id || ':' || x.kind || ':' || x.leg || ' is ' || x.status || ' for ' || x.value
      || '; the ledger moved ' || coalesce((-p.held)::text, 'nothing') || ' out of the collection address' AS line
    FROM payouts x LEFT JOIN (${held(sql, "payout")}) p ON p.source_id = x.payment_id || ':' || x.kind || ':' || x.leg
    WHERE (x.status = 'completed' AND p.held IS DISTINCT FROM -x.value) OR (x.status <> 'completed' AND p.held IS NOT NULL)`
  const refunds = yield* sql<{ readonly line: string }>`
    SELECT 'refund of receipt ' || r.id || ' is ' || coalesce(r.refund ->> 'status', 'not asked') || ' for ' || coalesce(r.refund ->> 'value', '0')
      || '; the ledger moved ' || coalesce((-p.held)::text, 'nothing') || ' out of the collection address' AS line
    FROM chain_receipts r LEFT JOIN (${held(sql, "receipt_refund")}) p ON p.source_id = r.id
    WHERE (r.refund ->> 'status' = 'completed' AND p.held IS DISTINCT FROM -((r.refund ->> 'value')::numeric))
      OR (coalesce(r.refund ->> 'status', '') <> 'completed' AND p.held IS NOT NULL)`
  const [counts] = yield* sql<{ readonly transactions: unknown; readonly receipts: unknown; readonly payouts: unknown; readonly refunds: unknown }>`
    SELECT (SELECT count(*) FROM ledger_transactions) AS transactions, (SELECT count(*) FROM chain_receipts) AS receipts,
      (SELECT count(*) FROM payouts) AS payouts, (SELECT count(*) FROM chain_receipts WHERE refund IS NOT NULL) AS refunds`
  return {
    checked: {
      transactions: toInt(counts!.transactions),
      receipts: toInt(counts!.receipts),
      payouts: toInt(counts!.payouts),
      receiptRefunds: toInt(counts!.refunds)
    },
    findings: [...lines(unbalanced), ...lines(receipts), ...lines(reversals), ...lines(payouts), ...lines(refunds)]
  }
}).pipe(Effect.orDie)
