/**
 * Payments history in bulk, written by SQL (`generate_series`) in the shape the service writes
 * (`packages/adapters/src/internal/PaymentRow.ts`): the data-size bench grows its databases with it,
 * and the query-plan test seeds with it. Rows are numbered; `n` from `from` (inclusive) to `to`
 * (exclusive), so a database grows in steps without a clash.
 *
 * The mix, by `n`: 70 % of the payments belong to the dominant partner (40 % to its main merchant,
 * the rest over 6 more), 30 % to 5 other partners (2 merchants each, live or sandbox). Every bulk
 * payment is history: created an hour or more before `now` (30 s apart, older as `n` grows) and in
 * a final status (72 % succeeded and settled, 18 % expired, 5 % cancelled, 5 % failed), so no job
 * (expiry, executor, payouts) picks one up.
 *
 * @module
 */

/** One statement and its parameters (`$1`, … placeholders). */
export interface BulkStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** Where the bulk rows go. */
export interface BulkTarget {
  /** The dominant partner (it exists) and its main merchant (it exists, in `mode`). */
  readonly partnerId: string
  readonly merchantId: string
  readonly mode: "live" | "sandbox"
  /** Unix milliseconds every bulk row is older than. */
  readonly now: number
}

/** Share of the rows (out of 100) that belong to the main merchant. */
const mainShare = 40

// 100 slots: a row's merchant is the slot `(n * 37) % 100` (37 and 100 are coprime: every slot alike).
const slots = (target: BulkTarget) => {
  const others = Array.from({ length: 6 }, (_, i) => ({ id: `mer_bulk${i + 1}`, partnerId: target.partnerId, mode: target.mode }))
  const foreign = Array.from({ length: 5 }, (_, p) =>
    Array.from({ length: 2 }, (_, m) => ({
      id: `mer_bulkp${p + 1}m${m + 1}`,
      partnerId: `ptn_bulk${p + 1}`,
      mode: m === 0 ? "live" : "sandbox"
    }))).flat()
  const merchants = [...others, ...foreign]
  const taken = [
    ...Array.from({ length: mainShare }, () => ({ id: target.merchantId, partnerId: target.partnerId, mode: target.mode })),
    ...others.flatMap((m) => Array.from({ length: 5 }, () => m)),
    ...foreign.flatMap((m) => Array.from({ length: 3 }, () => m))
  ]
  return { merchants, taken }
}

/** Whether bulk row `n` belongs to the main merchant. */
export const ofMainMerchant = (n: number) => (n * 37) % 100 < mainShare

/** The id of bulk row `n`. */
export const bulkPaymentId = (n: number) => `pay_bulk${n}`

/** Milliseconds between two bulk rows. */
const stepMillis = 30_000

/**
 * The statements that add bulk payments `from` to `to` (exclusive): the other partners and
 * merchants first (kept when they exist), then the payments in one `INSERT … SELECT`.
 */
export const bulkPayments = (target: BulkTarget, from: number, to: number): ReadonlyArray<BulkStatement> => {
  const { merchants, taken } = slots(target)
  const partners = [...new Set(merchants.map((m) => m.partnerId).filter((id) => id !== target.partnerId))]
  return [
    {
      text: `INSERT INTO partners (id, name, pinned_version, created_at)
        SELECT p.id, 'Bulk ' || p.id, d.pinned_version, $2::bigint FROM unnest($1::text[]) AS p (id), partners d WHERE d.id = $3
        ON CONFLICT (id) DO NOTHING`,
      params: [partners, target.now - 400 * 86_400_000, target.partnerId]
    },
    {
      text: `INSERT INTO merchants (id, partner_id, mode, name, email, icon_url, deleted, created_at, updated_at)
        SELECT m.id, m.partner_id, m.mode, 'Bulk shop ' || m.id, NULL, NULL, false, $4::bigint, $4::bigint
        FROM unnest($1::text[], $2::text[], $3::text[]) AS m (id, partner_id, mode)
        ON CONFLICT (id) DO NOTHING`,
      params: [merchants.map((m) => m.id), merchants.map((m) => m.partnerId), merchants.map((m) => m.mode), target.now - 400 * 86_400_000]
    },
    {
      // The commitment is the domain's JSON encoding of a pull commitment (Commitment in
      // packages/domain/src/payment/Payment.ts), with a nonce and transaction hash of its own per row.
      text: `INSERT INTO payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status, state_version,
          checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at, settlement_decided)
        SELECT 'pay_bulk' || r.n, s.partner_id, s.merchant_id, s.mode, 'bulk-' || r.n, 'USD', r.value, r.status,
          CASE r.status WHEN 'succeeded' THEN 3 WHEN 'failed' THEN 3 ELSE 2 END,
          NULL, r.created_at + 900000,
          CASE WHEN r.status IN ('succeeded', 'failed') THEN jsonb_build_object(
            'kind', 'pull',
            'account', 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            'asset', 'eip155:31337/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3',
            'tokenAmount', (r.value * 10000)::text,
            'fingerprint', 'bulk-' || r.n,
            'txHash', CASE WHEN r.status = 'succeeded' THEN '0x' || lpad(to_hex(r.n), 64, '0') END,
            'authorization', jsonb_build_object(
              'to', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', 'validBefore', r.created_at / 1000 + 3600,
              'nonce', '0x' || lpad(to_hex(r.n), 64, '0'), 'signature', '0x01'),
            'reference', NULL, 'walletName', 'Bulk wallet', 'confirmedAt', r.created_at / 1000 + 60) END,
          CASE WHEN r.status = 'cancelled' THEN 'cancelled_by_merchant' END,
          CASE WHEN r.status = 'cancelled' THEN r.created_at + 60000 END,
          r.created_at, r.created_at + 60000, r.status = 'succeeded'
        FROM (
          SELECT n, (n * 37) % 100 + 1 AS slot, 100 + (n * 7919) % 100000 AS value,
            $4::bigint - 3600000 - n::bigint * ${stepMillis} AS created_at,
            CASE WHEN (n * 53 + 7) % 100 < 72 THEN 'succeeded' WHEN (n * 53 + 7) % 100 < 90 THEN 'expired'
              WHEN (n * 53 + 7) % 100 < 95 THEN 'cancelled' ELSE 'failed' END AS status
          FROM generate_series($5::bigint, $6::bigint - 1) AS n
        ) r
        JOIN unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS s (merchant_id, partner_id, mode, slot) ON s.slot = r.slot`,
      params: [taken.map((m) => m.id), taken.map((m) => m.partnerId), taken.map((m) => m.mode), target.now, from, to]
    }
  ]
}
