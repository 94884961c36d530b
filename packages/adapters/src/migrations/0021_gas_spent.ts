/**
 * Migration 0021: gas the service paid, and its place in the ledger (docs/ledger.md).
 *
 * - `gas_spent`: one row per transaction the service sent and saw mined (`chain_id`, `tx_hash`):
 *   what it was for (`operation`, `subject_id`), who paid (`payer`, the signer's address), and
 *   `gas_used` × `effective_gas_price` = `amount`, in wei of the chain's native asset (`asset`).
 * - Ledger accounts `signer` (a signer's native balance, by address) and `gas_expense` (the
 *   operator's), and ledger transactions of source `gas`: the signer credited, the expense debited.
 *
 * @module
 */

/** The statements of migration 0021, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE gas_spent (
    chain_id text COLLATE "C" NOT NULL,
    tx_hash text COLLATE "C" NOT NULL CHECK (tx_hash = lower(tx_hash)),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    operation text NOT NULL CHECK (operation IN ('payment', 'settlement', 'refund', 'sweep')),
    subject_id text COLLATE "C" NOT NULL,
    asset text COLLATE "C" NOT NULL CHECK (starts_with(asset, chain_id || '/')),
    payer text COLLATE "C" NOT NULL CHECK (payer = lower(payer)),
    gas_used numeric(78, 0) NOT NULL CHECK (gas_used >= 0),
    effective_gas_price numeric(78, 0) NOT NULL CHECK (effective_gas_price >= 0),
    amount numeric(78, 0) NOT NULL CHECK (amount = gas_used * effective_gas_price),
    recorded_at bigint NOT NULL,
    PRIMARY KEY (chain_id, tx_hash)
  )`,
  `CREATE INDEX gas_spent_subject ON gas_spent (subject_id)`,
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check`,
  `ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('collection', 'deposit', 'merchant', 'refund_claim', 'unmatched', 'opening', 'signer', 'gas_expense'))`,
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_owner`,
  `ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner CHECK (CASE kind
    WHEN 'collection' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
    WHEN 'opening' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
    WHEN 'gas_expense' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
    WHEN 'signer' THEN address IS NOT NULL AND partner_id IS NULL AND merchant_id IS NULL
    WHEN 'deposit' THEN address IS NOT NULL AND merchant_id IS NULL
    WHEN 'merchant' THEN address IS NULL AND partner_id IS NOT NULL AND merchant_id IS NOT NULL
    ELSE address IS NOT NULL AND merchant_id IS NULL END)`,
  `ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_source_check`,
  `ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_source_check
    CHECK (source IN ('receipt', 'receipt_reversal', 'payout', 'receipt_refund', 'sweep', 'opening', 'gas'))`
]
