/**
 * Posting to the ledger (migration 0019) inside the caller's transaction, so that a movement's
 * entries commit with the state change they reflect or not at all. A posting is one ledger
 * transaction per source (`ledger_transactions_once`: a second posting of the same movement fails
 * its whole transaction); the database refuses one that does not balance (at commit) or mixes modes.
 *
 * @module
 */
import { type LedgerAccount, type LedgerEntry, type Mode, NetworkModes } from "@paygate/domain"
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { toInt } from "./Rows.ts"

/** What a ledger transaction records. */
export type LedgerSource = "receipt" | "receipt_reversal" | "payout" | "receipt_refund" | "sweep" | "opening" | "gas"

const chainOf = (asset: string) => asset.slice(0, asset.indexOf("/"))

const columnsOf = (account: LedgerAccount) => ({
  address: account.kind === "collection" || account.kind === "merchant" || account.kind === "gas_expense" || account.kind === "opening"
    ? null
    : account.address,
  partnerId: account.kind === "merchant" || account.kind === "refund_claim" || account.kind === "unmatched" ? account.partnerId : null,
  merchantId: account.kind === "merchant" ? account.merchantId : null
})

// Found, else created; no lock on an account that exists (many transactions post to one collection account).
const accountId = (sql: SqlClient.SqlClient, mode: Mode, account: LedgerAccount) =>
  Effect.gen(function*() {
    const c = columnsOf(account)
    const find = sql<{ readonly id: unknown }>`SELECT id FROM ledger_accounts
      WHERE mode = ${mode} AND kind = ${account.kind} AND asset = ${account.asset} AND address IS NOT DISTINCT FROM ${c.address}::text
        AND partner_id IS NOT DISTINCT FROM ${c.partnerId}::text AND merchant_id IS NOT DISTINCT FROM ${c.merchantId}::text`
    const found = yield* find
    if (found.length > 0) return toInt(found[0]!.id)
    const made = yield* sql<{ readonly id: unknown }>`INSERT INTO ledger_accounts (mode, kind, chain_id, asset, address, partner_id, merchant_id)
      VALUES (${mode}, ${account.kind}, ${chainOf(account.asset)}, ${account.asset}, ${c.address}, ${c.partnerId}, ${c.merchantId})
      ON CONFLICT ON CONSTRAINT ledger_accounts_once DO NOTHING
      RETURNING id`
    return toInt((made[0] ?? (yield* find)[0]!).id)
  })

/** Posts `entries` as the ledger transaction of (`source`, `sourceId`) in `mode`; nothing when there are none. */
export const post = (sql: SqlClient.SqlClient, mode: Mode, source: LedgerSource, sourceId: string, entries: ReadonlyArray<LedgerEntry>) =>
  Effect.gen(function*() {
    if (entries.length === 0) return
    const now = yield* Clock.currentTimeMillis
    const [transaction] = yield* sql<{ readonly id: unknown }>`INSERT INTO ledger_transactions (mode, source, source_id, posted_at)
      VALUES (${mode}, ${source}, ${sourceId}, ${now}::bigint) RETURNING id`
    for (const entry of entries) {
      const account = yield* accountId(sql, mode, entry.account)
      yield* sql`INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
        VALUES (${toInt(transaction!.id)}::bigint, ${account}::bigint, ${mode}, ${entry.account.asset}, ${entry.amount.toString()}::numeric)`
    }
  })

/**
 * Posts the entries undoing the ledger transaction of (`source`, `sourceId`), as (`reversal`,
 * `sourceId`) in the same mode; nothing when that movement was never posted.
 */
export const postReversal = (sql: SqlClient.SqlClient, source: LedgerSource, reversal: LedgerSource, sourceId: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    yield* sql`WITH original AS (
        SELECT id, mode FROM ledger_transactions WHERE source = ${source} AND source_id = ${sourceId}
      ), reversed AS (
        INSERT INTO ledger_transactions (mode, source, source_id, posted_at)
        SELECT mode, ${reversal}, ${sourceId}, ${now}::bigint FROM original
        RETURNING id
      )
      INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
      SELECT reversed.id, e.account_id, e.mode, e.asset, -e.amount
      FROM reversed, original JOIN ledger_entries e ON e.transaction_id = original.id`
  })

/**
 * The mode of what arrived on `chainId` (to the deposit address `deposit`, if any) when the receipt
 * names none (unmatched): its earlier posting's, else its deposit's payment's, else the chain's
 * (`NetworkModes`, else the mode the ledger already keeps on that chain: a chain carries one mode).
 */
export const modeOfArrival = (
  sql: SqlClient.SqlClient,
  known: { readonly mode: Mode | null; readonly id: string; readonly chainId: string },
  deposit: string | null
) =>
  Effect.gen(function*() {
    if (known.mode !== null) return known.mode
    const rows = yield* sql<{ readonly mode: Mode }>`
      SELECT mode FROM ledger_transactions WHERE source = 'receipt' AND source_id = ${known.id}
      UNION ALL
      SELECT p.mode FROM deposit_addresses d JOIN payments p ON p.id = d.payment_id
        WHERE d.chain_id = ${known.chainId} AND d.address = ${deposit?.toLowerCase() ?? null}::text`
    if (rows.length > 0) return rows[0]!.mode
    const configured = (yield* NetworkModes).modeOf(known.chainId)
    if (configured !== undefined) return configured
    const kept = yield* sql<{ readonly mode: Mode }>`SELECT mode FROM ledger_accounts WHERE chain_id = ${known.chainId} LIMIT 1`
    if (kept.length > 0) return kept[0]!.mode
    return yield* Effect.die(new Error(`no mode known for chain ${known.chainId}: configure it before recording its transfers`))
  })
