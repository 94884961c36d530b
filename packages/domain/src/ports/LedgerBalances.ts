import { Context, type Effect } from "effect"
import type { BalanceStatement } from "../exports/BalanceStatement.ts"
import type { Mode } from "../payment/Payment.ts"

/** What the ledger owes a merchant in one token: credited payments less what left as settlements and refunds. */
export interface MerchantBalance {
  readonly merchantId: string
  /** CAIP-19 token. */
  readonly asset: string
  /** Token base units owed to the merchant. */
  readonly owed: bigint
}

/** What the ledger says an address of the service holds in one token. */
export interface AddressBalance {
  readonly mode: Mode
  readonly kind: "collection" | "deposit"
  /** CAIP-19 token. */
  readonly asset: string
  /** Lower-case; `null` for the chain's collection address (one per chain). */
  readonly address: string | null
  /** Token base units. */
  readonly held: bigint
}

/** One line of a reconciliation report: an address's balance in the ledger and on chain at a block. */
export interface ReconciliationLine {
  readonly chainId: string
  readonly asset: string
  readonly kind: "collection" | "deposit"
  readonly address: string
  readonly blockNumber: number
  readonly ledger: bigint
  readonly chain: bigint
}

/** One page of the statements of a partner's merchant accounts in one mode over [`fromMillis`, `toMillis`). */
export interface StatementPageQuery {
  readonly partnerId: string
  readonly mode: Mode
  readonly merchantId?: string | undefined
  readonly fromMillis: number
  readonly toMillis: number
  /** Keyset: the last statement of the previous page (merchant and token), else `null`. */
  readonly after: { readonly merchantId: string; readonly asset: string } | null
  readonly limit: number
}

/**
 * The ledger checked against the service's own records: every ledger transaction balanced per
 * token; every receipt's arrival posted at its address for its whole value (so every unit that
 * arrived is credited once or owed back once) and undone when a reorganisation removed it; every
 * completed payout and receipt refund posted leaving the collection address for its value, and
 * nothing posted for one that did not complete.
 */
export interface LedgerAuditReport {
  /** How many of each were checked. */
  readonly checked: {
    readonly transactions: number
    readonly receipts: number
    readonly payouts: number
    readonly receiptRefunds: number
  }
  /** One line per disagreement; none when the ledger agrees with the records. */
  readonly findings: ReadonlyArray<string>
}

/**
 * Balances derived from the ledger's entries (nothing stored twice), for the dashboard, the exports
 * and the reconciliation job, and the reports that job records. Infrastructure failures are defects.
 */
export class LedgerBalances extends Context.Service<LedgerBalances, {
  /** Every merchant of `partnerId` in `mode` with an account, per token. */
  readonly merchantBalances: (partnerId: string, mode: Mode) => Effect.Effect<ReadonlyArray<MerchantBalance>>
  /**
   * The merchant accounts' statements, by merchant and token: those owed something before the
   * period or moved in it (an entry's time is its ledger transaction's).
   */
  readonly statements: (query: StatementPageQuery) => Effect.Effect<ReadonlyArray<BalanceStatement>>
  /** The collection and deposit accounts of `chainId`. */
  readonly addressBalances: (chainId: string) => Effect.Effect<ReadonlyArray<AddressBalance>>
  /** Records a reconciliation run (its lines, at Unix milliseconds `runAt`). */
  readonly recordReconciliation: (runAt: number, lines: ReadonlyArray<ReconciliationLine>) => Effect.Effect<void>
  /** The lines of the latest run of each chain. */
  readonly latestReconciliation: Effect.Effect<ReadonlyArray<ReconciliationLine & { readonly runAt: number }>>
  /** The ledger against the records (a full scan, for the operator and the tests; see {@link LedgerAuditReport}). */
  readonly audit: Effect.Effect<LedgerAuditReport>
}>()("@paygate/domain/LedgerBalances") {}
