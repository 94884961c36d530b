/**
 * Migration 0019: the double-entry ledger (docs/ledger.md). Amounts are token base units,
 * `numeric(78,0)`, signed: a debit is positive, a credit negative.
 *
 * - `ledger_accounts`: one per (mode, kind, asset, address, partner, merchant); `collection` and
 *   `deposit` hold tokens on chain (their balance is what the address holds), the others are what
 *   is owed: to a merchant, back to a buyer (`refund_claim`), or an unmatched receipt's sender.
 * - `ledger_transactions`: one per movement (`source`, `source_id`), never two: a movement posts once.
 * - `ledger_entries`: append-only. Their composite foreign keys give every entry its transaction's
 *   mode and its account's mode and asset, so sandbox and live never meet in one transaction; the
 *   deferred constraint trigger `ledger_entries_balanced` refuses to commit a transaction whose
 *   entries do not sum to zero per asset.
 * - `ledger_balances`: balances derived from the entries (never stored).
 * - `ledger_reconciliations`: the reconciliation job's reports, ledger against chain per address.
 *
 * @module
 */

/** The statements of migration 0019, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE ledger_accounts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    kind text NOT NULL CHECK (kind IN ('collection', 'deposit', 'merchant', 'refund_claim', 'unmatched')),
    chain_id text COLLATE "C" NOT NULL,
    asset text COLLATE "C" NOT NULL CHECK (starts_with(asset, chain_id || '/')),
    address text COLLATE "C" CHECK (address = lower(address)),
    partner_id text COLLATE "C",
    merchant_id text COLLATE "C",
    CONSTRAINT ledger_accounts_once UNIQUE NULLS NOT DISTINCT (mode, kind, asset, address, partner_id, merchant_id),
    CONSTRAINT ledger_accounts_id_mode_asset UNIQUE (id, mode, asset),
    CONSTRAINT ledger_accounts_owner CHECK (CASE kind
      WHEN 'collection' THEN address IS NULL AND partner_id IS NULL AND merchant_id IS NULL
      WHEN 'deposit' THEN address IS NOT NULL AND merchant_id IS NULL
      WHEN 'merchant' THEN address IS NULL AND partner_id IS NOT NULL AND merchant_id IS NOT NULL
      ELSE address IS NOT NULL AND merchant_id IS NULL END)
  )`,
  `CREATE INDEX ledger_accounts_owner ON ledger_accounts (partner_id, mode, kind)`,
  `CREATE TABLE ledger_transactions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    source text NOT NULL CHECK (source IN ('receipt', 'receipt_reversal', 'payout', 'receipt_refund', 'sweep')),
    source_id text COLLATE "C" NOT NULL,
    posted_at bigint NOT NULL,
    CONSTRAINT ledger_transactions_once UNIQUE (source, source_id),
    CONSTRAINT ledger_transactions_id_mode UNIQUE (id, mode)
  )`,
  `CREATE TABLE ledger_entries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id bigint NOT NULL,
    account_id bigint NOT NULL,
    mode text NOT NULL,
    asset text COLLATE "C" NOT NULL,
    amount numeric(78, 0) NOT NULL CHECK (amount <> 0),
    CONSTRAINT ledger_entries_transaction FOREIGN KEY (transaction_id, mode) REFERENCES ledger_transactions (id, mode),
    CONSTRAINT ledger_entries_account FOREIGN KEY (account_id, mode, asset) REFERENCES ledger_accounts (id, mode, asset)
  )`,
  `CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id)`,
  `CREATE INDEX ledger_entries_account ON ledger_entries (account_id)`,
  `CREATE FUNCTION ledger_entries_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE unbalanced text;
    BEGIN
      SELECT asset INTO unbalanced FROM ledger_entries WHERE transaction_id = NEW.transaction_id
        GROUP BY asset HAVING sum(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger transaction % does not balance in %', NEW.transaction_id, unbalanced
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END $$`,
  `CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entries_balanced()`,
  `CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME; END $$`,
  `CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`,
  `CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`,
  `CREATE VIEW ledger_balances AS
    SELECT a.id AS account_id, a.mode, a.kind, a.chain_id, a.asset, a.address, a.partner_id, a.merchant_id,
      coalesce(sum(e.amount), 0)::numeric(78, 0) AS balance
    FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
    GROUP BY a.id`,
  `CREATE TABLE ledger_reconciliations (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_at bigint NOT NULL,
    chain_id text COLLATE "C" NOT NULL,
    asset text COLLATE "C" NOT NULL,
    kind text NOT NULL CHECK (kind IN ('collection', 'deposit')),
    address text COLLATE "C" NOT NULL,
    block_number bigint NOT NULL,
    ledger_balance numeric(78, 0) NOT NULL,
    chain_balance numeric(78, 0) NOT NULL
  )`,
  `CREATE INDEX ledger_reconciliations_latest ON ledger_reconciliations (chain_id, run_at DESC)`
]
