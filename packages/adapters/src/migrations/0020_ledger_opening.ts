/**
 * Migration 0020: opening balances (docs/ledger.md). An `opening` account per mode and token is the
 * operator's equity: it is credited what an address held before the ledger saw it, by one
 * `opening` ledger transaction per address and token (its `source_id`), never two.
 *
 * @module
 */

/** The statements of migration 0020, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check`,
  `ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('collection', 'deposit', 'merchant', 'refund_claim', 'unmatched', 'opening'))`,
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_owner`,
  `ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner CHECK (CASE kind
      WHEN 'collection' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
      WHEN 'opening' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
      WHEN 'deposit' THEN address IS NOT NULL AND merchant_id IS NULL
      WHEN 'merchant' THEN address IS NULL AND partner_id IS NOT NULL AND merchant_id IS NOT NULL
      ELSE address IS NOT NULL AND merchant_id IS NULL END)`,
  `ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_source_check`,
  `ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_source_check
    CHECK (source IN ('receipt', 'receipt_reversal', 'payout', 'receipt_refund', 'sweep', 'opening'))`
]
