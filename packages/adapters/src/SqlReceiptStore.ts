/**
 * `ReceiptStore` on SQL (`chain_receipts`, migrations 0010 and 0018; `chain_quarantine`, 0015). `record` is one transaction: the
 * receipt (`ON CONFLICT DO NOTHING` on `chain_receipts_once`, so a rescanned log writes nothing), the
 * payment's compare-and-set and the outbox events, all or nothing; `reverse` likewise marks a receipt
 * a reorganisation removed (`reversed_at`; only receipts not reversed are unique, so the transfer
 * mined again is recorded again). Database failures are defects.
 *
 * @module
 */
import {
  type GasPaid,
  type ObservedTransfer,
  type OutboxEvent,
  type Payment,
  type PaymentStatus,
  Receipt,
  type ReceiptId,
  type ReceiptQuery,
  receiptRefundPostings,
  receivedPostings,
  ReceiptRefund,
  ReceiptStore,
  type RecordResult,
  traced
} from "@paygate/domain"
import { Clock, Data, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { recordGas } from "./internal/GasWrites.ts"
import { modeOfArrival, post, postReversal } from "./internal/LedgerWrites.ts"
import { fromJsonColumn, toInt, toIntOrNull } from "./internal/Rows.ts"
import { compareAndSet, insertEvents } from "./internal/PaymentWrites.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  record: traced("SqlReceiptStore.record"),
  list: traced("SqlReceiptStore.list"),
  find: traced("SqlReceiptStore.find"),
  saveRefund: traced("SqlReceiptStore.saveRefund"),
  claimRefunds: traced("SqlReceiptStore.claimRefunds"),
  releaseRefund: traced("SqlReceiptStore.releaseRefund"),
  quarantine: traced("SqlReceiptStore.quarantine"),
  quarantined: traced("SqlReceiptStore.quarantined"),
  resolveQuarantine: traced("SqlReceiptStore.resolveQuarantine"),
  onChainIn: traced("SqlReceiptStore.onChainIn"),
  reverse: traced("SqlReceiptStore.reverse")
}

// The refund column: the domain's JSON encoding, read back without repeating its checks.
const RefundJson = Schema.toCodecJson(ReceiptRefund)
const encodeRefund = Schema.encodeSync(RefundJson)
const decodeRefund = Schema.decodeUnknownSync(RefundJson, { disableChecks: true })

const columns = `id, chain_id, tx_hash, log_index, asset, block_number, block_hash, block_time, sender, value::text AS value,
  reference, outcome, payment_id, partner_id, mode, expected_value::text AS expected_value, payment_status, recorded_at, refund,
  reversed_at`

interface ReceiptRow {
  readonly id: string
  readonly chain_id: string
  readonly tx_hash: string
  readonly log_index: unknown
  readonly asset: string
  readonly block_number: unknown
  readonly block_hash: string
  readonly block_time: unknown
  readonly sender: string
  readonly value: string
  readonly reference: string | null
  readonly outcome: Receipt["outcome"]
  readonly payment_id: string | null
  readonly partner_id: string | null
  readonly mode: "live" | "sandbox" | null
  readonly expected_value: string | null
  readonly payment_status: string | null
  readonly recorded_at: unknown
  readonly refund: unknown
  readonly reversed_at: unknown
}

// Rows are our own, written from valid receipts: read back without repeating the checks.
const fromRow = (row: ReceiptRow): Receipt =>
  new Receipt({
    id: row.id as Receipt["id"],
    chainId: row.chain_id,
    asset: row.asset,
    txHash: row.tx_hash,
    logIndex: toInt(row.log_index),
    blockNumber: toInt(row.block_number),
    blockHash: row.block_hash,
    blockTime: toInt(row.block_time),
    from: row.sender,
    value: BigInt(row.value),
    reference: row.reference,
    outcome: row.outcome,
    paymentId: row.payment_id as Receipt["paymentId"],
    partnerId: row.partner_id as Receipt["partnerId"],
    mode: row.mode,
    expectedValue: row.expected_value === null ? null : BigInt(row.expected_value),
    paymentStatus: row.payment_status as PaymentStatus | null,
    recordedAt: toInt(row.recorded_at),
    refund: row.refund === null || row.refund === undefined ? null : decodeRefund(fromJsonColumn(row.refund)),
    reversedAt: toIntOrNull(row.reversed_at)
  }, { disableChecks: true })

// A quarantined transfer as stored: the value as a decimal string.
const encodeTransfer = (transfer: ObservedTransfer) => ({ ...transfer, value: transfer.value.toString() })
const decodeTransfer = (stored: unknown): ObservedTransfer => {
  const row = stored as Omit<ObservedTransfer, "value"> & { readonly value: string }
  return { ...row, value: BigInt(row.value) }
}

/** The payment changed between reading and writing: roll the receipt back. */
class Stale extends Data.TaggedError("Stale")<{}> {}

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const select = sql.literal(columns)

  // A receipt write in one transaction, rolled back when the payment changed meanwhile (`stale`).
  const written = (span: typeof spans.record) => <E>(write: Effect.Effect<RecordResult, E | Stale>): Effect.Effect<RecordResult> =>
    write.pipe(
      sql.withTransaction,
      Effect.catchTag("Stale", () => Effect.succeed("stale" as const)),
      Effect.orDie,
      span
    )

  const record = (
    receipt: Receipt,
    next: Payment | null,
    events: ReadonlyArray<OutboxEvent>,
    completed: ReadonlyArray<ReceiptId>,
    depositAddress: string | null
  ): Effect.Effect<RecordResult> =>
    Effect.gen(function*() {
      const r = receipt
      const inserted = yield* sql`INSERT INTO chain_receipts (id, chain_id, tx_hash, log_index, asset, block_number, block_hash,
          block_time, sender, value, reference, outcome, payment_id, partner_id, mode, expected_value, payment_status, recorded_at)
        VALUES (${r.id}, ${r.chainId}, ${r.txHash.toLowerCase()}, ${r.logIndex}, ${r.asset}, ${r.blockNumber}::bigint, ${r.blockHash},
          ${r.blockTime}::bigint, ${r.from}, ${r.value.toString()}::numeric, ${r.reference}, ${r.outcome}, ${r.paymentId},
          ${r.partnerId}, ${r.mode}, ${r.expectedValue === null ? null : r.expectedValue.toString()}::numeric, ${r.paymentStatus},
          ${r.recordedAt}::bigint)
        ON CONFLICT (chain_id, tx_hash, log_index) WHERE reversed_at IS NULL DO NOTHING
        RETURNING id`
      if (inserted.length === 0) return "duplicate" as const
      if (next !== null && !(yield* compareAndSet(sql, next))) return yield* new Stale()
      const parts: Array<Receipt> = []
      if (completed.length > 0) {
        // Only while still underpaid and not being refunded (saveRefund refuses a paid receipt).
        const marked = yield* sql<ReceiptRow>`UPDATE chain_receipts SET outcome = 'paid'
          WHERE ${sql.in("id", completed)} AND outcome = 'underpaid' AND refund IS NULL
          RETURNING ${select}`
        if (marked.length !== completed.length) return yield* new Stale()
        // Posted as what they were: underpaid parts, owed back until now.
        for (const row of marked) parts.push(fromRow({ ...row, outcome: "underpaid" }))
      }
      yield* insertEvents(sql, events)
      const merchant = r.paymentId === null
        ? []
        : yield* sql<{ readonly merchant_id: string }>`SELECT merchant_id FROM payments WHERE id = ${r.paymentId}`
      const mode = yield* modeOfArrival(sql, r, depositAddress)
      const at = depositAddress === null ? { kind: "collection" as const } : { kind: "deposit" as const, address: depositAddress }
      yield* post(sql, mode, "receipt", r.id, receivedPostings(r, at, merchant[0]?.merchant_id ?? null, parts))
      return "recorded" as const
    }).pipe(written(spans.record))

  const list = (query: ReceiptQuery) => {
    const where: Array<Fragment> = query.owner === "operator"
      ? [sql`payment_id IS NULL`, sql`partner_id IS NULL`]
      : [sql`partner_id = ${query.owner.partnerId}`, sql`mode = ${query.owner.mode}`]
    if (query.paymentId !== undefined) where.push(sql`payment_id = ${query.paymentId}`)
    if (query.outcomes !== undefined && query.outcomes.length > 0) where.push(sql.in("outcome", query.outcomes))
    if (query.after !== null) {
      where.push(sql`(recorded_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`)
    }
    return sql<ReceiptRow>`SELECT ${select} FROM chain_receipts WHERE ${sql.and(where)}
      ORDER BY recorded_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(fromRow)),
      Effect.orDie,
      spans.list
    )
  }

  const find = (id: ReceiptId) =>
    sql<ReceiptRow>`SELECT ${select} FROM chain_receipts WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), fromRow)),
      Effect.orDie,
      spans.find
    )

  const saveRefund = (id: ReceiptId, refund: ReceiptRefund, gas?: GasPaid) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = refund.status === "pending" ? now : null
      const rows = yield* sql<ReceiptRow>`UPDATE chain_receipts
        SET refund = ${JSON.stringify(encodeRefund(refund))}::jsonb, refund_due_at = ${due}::bigint,
          -- A retried (failed) refund is due at once: the lease of the worker that failed it is long gone.
          refund_lease_until = CASE WHEN refund ->> 'status' = 'pending' THEN refund_lease_until END
        WHERE id = ${id} AND coalesce((refund ->> 'version')::integer, 0) = ${refund.version - 1}
          AND NOT (refund IS NULL AND (outcome = 'paid' OR reversed_at IS NOT NULL OR EXISTS (
            -- The same transfer read again after a reorganisation is a new receipt: refunded once across them.
            SELECT 1 FROM chain_receipts other
            WHERE other.chain_id = chain_receipts.chain_id AND other.tx_hash = chain_receipts.tx_hash
              AND other.log_index = chain_receipts.log_index AND other.reversed_at IS NOT NULL
              AND other.refund ->> 'status' IN ('pending', 'completed'))))
        RETURNING ${select}`
      if (rows.length === 0) return false
      if (refund.status !== "completed" && gas === undefined) return true
      const receipt = fromRow(rows[0]!)
      const mode = yield* modeOfArrival(sql, receipt, null)
      // What it sent left the collection address: the sender's claim is paid.
      if (refund.status === "completed") yield* post(sql, mode, "receipt_refund", receipt.id, receiptRefundPostings(receipt, refund.value))
      yield* recordGas(sql, mode, "refund", receipt.id, gas)
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.saveRefund)

  const claimRefunds = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly id: ReceiptId }>`UPDATE chain_receipts SET refund_lease_until = ${now + leaseMillis}::bigint
        WHERE id IN (
          SELECT id FROM chain_receipts
          WHERE refund ->> 'status' = 'pending' AND refund_due_at <= ${now}::bigint
            AND coalesce(refund_lease_until, 0) <= ${now}::bigint
          ORDER BY refund_due_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id`
      return rows.map((row) => row.id)
    }).pipe(Effect.orDie, spans.claimRefunds)

  const releaseRefund = (id: ReceiptId, afterMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE chain_receipts SET refund_lease_until = NULL, refund_due_at = ${now + afterMillis}::bigint
        WHERE id = ${id} AND refund ->> 'status' = 'pending'`
    }).pipe(Effect.orDie, spans.releaseRefund)

  const quarantine = (transfer: ObservedTransfer, reason: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly attempts: unknown }>`INSERT INTO chain_quarantine
          (chain_id, tx_hash, log_index, transfer, reason, quarantined_at, updated_at)
        VALUES (${transfer.chainId}, ${transfer.txHash.toLowerCase()}, ${transfer.logIndex}, ${JSON.stringify(encodeTransfer(transfer))}::jsonb,
          ${reason}, ${now}::bigint, ${now}::bigint)
        ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE SET transfer = EXCLUDED.transfer, reason = EXCLUDED.reason,
          attempts = chain_quarantine.attempts + 1, updated_at = EXCLUDED.updated_at, resolved_at = NULL, resolution = NULL
        RETURNING attempts`
      return rows.length > 0 && toInt(rows[0]!.attempts) === 1
    }).pipe(Effect.orDie, spans.quarantine)

  const quarantined = (chainId: string, limit: number) =>
    sql<{ readonly transfer: unknown }>`SELECT transfer FROM chain_quarantine WHERE chain_id = ${chainId} AND resolved_at IS NULL
      ORDER BY quarantined_at, tx_hash, log_index LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map((row) => decodeTransfer(fromJsonColumn(row.transfer)))),
      Effect.orDie,
      spans.quarantined
    )

  const resolveQuarantine = (transfer: ObservedTransfer, outcome: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE chain_quarantine SET resolved_at = ${now}::bigint, resolution = ${outcome}, updated_at = ${now}::bigint
        WHERE chain_id = ${transfer.chainId} AND tx_hash = ${transfer.txHash.toLowerCase()} AND log_index = ${transfer.logIndex}`
    }).pipe(Effect.orDie, spans.resolveQuarantine)

  const onChainIn = (chainId: string, fromBlock: number, toBlock: number) =>
    sql<ReceiptRow>`SELECT ${select} FROM chain_receipts
      WHERE chain_id = ${chainId} AND block_number BETWEEN ${fromBlock}::bigint AND ${toBlock}::bigint AND reversed_at IS NULL
      ORDER BY block_number, log_index`.pipe(
      Effect.map((rows) => rows.map(fromRow)),
      Effect.orDie,
      spans.onChainIn
    )

  const reverse = (id: ReceiptId, reversedAt: number, next: Payment | null, events: ReadonlyArray<OutboxEvent>) =>
    Effect.gen(function*() {
      const marked = yield* sql`UPDATE chain_receipts SET reversed_at = ${reversedAt}::bigint
        WHERE id = ${id} AND reversed_at IS NULL
        RETURNING id`
      if (marked.length === 0) return "duplicate" as const
      yield* postReversal(sql, "receipt", "receipt_reversal", id)
      if (next !== null) {
        if (!(yield* compareAndSet(sql, next))) return yield* new Stale()
        // Settled, it kept the executor's lease: due again now (`SqlChainWork`).
        yield* sql`UPDATE payments SET chain_lease_until = NULL, chain_due_at = NULL WHERE id = ${next.id}`
      }
      yield* insertEvents(sql, events)
      return "recorded" as const
    }).pipe(written(spans.reverse))

  return ReceiptStore.of({ record, list, find, saveRefund, claimRefunds, releaseRefund, quarantine, quarantined, resolveQuarantine, onChainIn, reverse })
})

/** `ReceiptStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<ReceiptStore, never, SqlClient.SqlClient> = Layer.effect(ReceiptStore, make)
