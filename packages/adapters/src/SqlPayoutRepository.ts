/**
 * `PayoutRepository` on SQL (`payouts`, migration 0006). `update` is a compare-and-set on the
 * payout's `version`, in one transaction with the payment's own compare-and-set, its outbox events
 * and the refund record: all commit or none. `decide` locks the payment row, like a refund request
 * does (`SqlRefundRepository`), so of a settlement decision and a refund one comes first, and the
 * other sees it; then it reads the destination `FOR SHARE`, so a change of it comes before or after
 * the decision, never in between.
 *
 * @module
 */
import {
  type CryptoSettlement,
  type GasPaid,
  type Mode,
  paidOutPostings,
  type PaymentId,
  type Payout,
  type PayoutEffects,
  type PayoutKey,
  PayoutRepository,
  type PriorRefunds,
  traced
} from "@paygate/domain"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { recordGas } from "./internal/GasWrites.ts"
import { post } from "./internal/LedgerWrites.ts"
import { paymentFromRow, paymentSelect } from "./internal/PaymentRow.ts"
import { insertPayout, payoutFromRow, payoutSelect } from "./internal/PayoutRow.ts"
import { compareAndSet, insertEvents } from "./internal/PaymentWrites.ts"
import * as PerPaymentReads from "./internal/PerPaymentReads.ts"
import { priorRefunds } from "./internal/RefundRow.ts"
import { settlementFromRow } from "./internal/SettlementRow.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

/** The unique index keeping a payment's funds with one live payout. */
const oneLivePerPayment = "payouts_one_live_per_payment"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  find: traced("SqlPayoutRepository.find"),
  listByPayment: traced("SqlPayoutRepository.listByPayment"),
  undecided: traced("SqlPayoutRepository.undecided"),
  decide: traced("SqlPayoutRepository.decide"),
  update: traced("SqlPayoutRepository.update"),
  reopen: traced("SqlPayoutRepository.reopen")
}

// Aborts (rolls back) an update whose payment changed meanwhile.
class LostRace extends Schema.TaggedError<LostRace>()("LostRace", {}) {}

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const select = sql.literal(payoutSelect)

  const find = (key: PayoutKey) =>
    sql`SELECT ${select} FROM payouts WHERE payment_id = ${key.paymentId} AND kind = ${key.kind} AND leg = ${key.leg ?? 0}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), payoutFromRow)),
      Effect.orDie,
      spans.find
    )

  // Reads started together (a page of payment records) share one statement.
  const readPayouts = PerPaymentReads.make(
    sql,
    (ids) => sql`SELECT ${select} FROM payouts WHERE payment_id = ANY(${ids}::text[]) ORDER BY kind, leg`,
    payoutFromRow
  )
  const listByPayment = (paymentId: PaymentId) => readPayouts(paymentId).pipe(spans.listByPayment)

  const undecided = (limit: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return yield* sql`SELECT ${sql.literal(paymentSelect)} FROM payments
      WHERE status = 'succeeded' AND NOT settlement_decided
        -- A held payment's captures went from the escrow straight to the merchant: nothing of it is here to pay out.
        AND hold IS NULL
        -- A payment whose destination is not usable yet waits (left out, so it never fills the batch of the others).
        -- Destinations are stored checksummed, commitments as paid: asset ids compare without case (eip155 hex).
        AND NOT EXISTS (SELECT 1 FROM crypto_settlements s WHERE s.merchant_id = payments.merchant_id
          AND lower(s.asset) = lower(commitment ->> 'asset') AND s.usable_from > ${now}::bigint)
        -- A payment paid into its deposit address (commitment.recipient) is settled once the deposit was marked
        -- for its sweep and swept to the collection address, where settlements are paid from.
        AND NOT EXISTS (SELECT 1 FROM deposit_sweeps d WHERE d.payment_id = payments.id AND d.marked_version > d.swept_version)
        -- A scalar subquery probes the sweeps by payment (index): an EXISTS under OR is planned as a hash of them all.
        AND (commitment ->> 'recipient' IS NULL OR (SELECT true FROM deposit_sweeps d WHERE d.payment_id = payments.id LIMIT 1))
      ORDER BY updated_at LIMIT ${limit}`
    }).pipe(
      Effect.map((rows) => rows.map(paymentFromRow)),
      Effect.orDie,
      spans.undecided
    )

  const decide = (
    paymentId: PaymentId,
    plan: (destination: Option.Option<CryptoSettlement>, prior: PriorRefunds) => Payout | null | "waiting"
  ) =>
    Effect.gen(function*() {
      const open = yield* sql`SELECT id FROM payments
        WHERE id = ${paymentId} AND status = 'succeeded' AND NOT settlement_decided AND hold IS NULL FOR UPDATE`
      if (open.length === 0) return false
      // The destination as committed now, the payment locked; a change or removal of it waits for this decision.
      // Destinations are stored checksummed, commitments as paid: asset ids compare without case (eip155 hex).
      const destination = yield* sql`SELECT s.* FROM crypto_settlements s JOIN payments p ON p.merchant_id = s.merchant_id
        WHERE p.id = ${paymentId} AND lower(s.asset) = lower(p.commitment ->> 'asset') FOR SHARE OF s`
      // Planned against the refunds so far, the payment locked: a refund waits for this decision or came before it.
      const settlement = plan(Option.map(Option.fromNullishOr(destination[0]), settlementFromRow), yield* priorRefunds(sql, paymentId))
      if (settlement === "waiting") return false
      yield* sql`UPDATE payments SET settlement_decided = true WHERE id = ${paymentId}`
      if (settlement === null) return false
      yield* insertPayout(sql, settlement)
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.decide)

  // Its transfer left the collection address (`completed`: the merchant is paid), and what its transaction cost.
  const postPayout = (p: Payout, completed: boolean, gas: GasPaid | undefined) =>
    Effect.gen(function*() {
      const [payment] = yield* sql<{ readonly partner_id: string; readonly merchant_id: string; readonly mode: Mode }>`
        SELECT partner_id, merchant_id, mode FROM payments WHERE id = ${p.paymentId}`
      const source = `${p.paymentId}:${p.kind}:${p.leg}`
      if (completed) yield* post(sql, payment!.mode, "payout", source, paidOutPostings(p, payment!.partner_id, payment!.merchant_id))
      yield* recordGas(sql, payment!.mode, p.kind, source, gas)
    })

  // Compare-and-set of each payout, then the effects, all or nothing. A payout leaving a final
  // status (a retry), or approved, is due at once, its worker's lease long gone.
  const updateAll = (next: ReadonlyArray<Payout>, effects: PayoutEffects) =>
    Effect.gen(function*() {
      for (const p of next) {
        // Approved now: due at once, the lease of the worker that held it long gone.
        const approving = sql.literal(p.approvedAt !== null ? "approved_at IS NULL" : "false")
        const rows = yield* sql<{ readonly was: string }>`UPDATE payouts SET status = ${p.status}, tx_hash = ${p.transfer?.txHash ?? null},
            signed_tx = ${p.transfer?.raw ?? null}, attempts = ${p.attempts}, last_error = ${p.lastError}, version = ${p.version},
            updated_at = ${p.updatedAt}::bigint, completed_at = ${p.completedAt}::bigint,
            approval_required_reason = ${p.approvalRequired}, approved_by = ${p.approvedBy}, approved_at = ${p.approvedAt}::bigint,
            due_at = CASE WHEN status = 'pending' AND NOT ${approving} THEN due_at END,
            lease_until = CASE WHEN status = 'pending' AND NOT ${approving} THEN lease_until END
          WHERE payment_id = ${p.paymentId} AND kind = ${p.kind} AND leg = ${p.leg} AND version = ${p.version - 1}
          RETURNING (SELECT o.status FROM payouts o WHERE o.payment_id = payouts.payment_id AND o.kind = payouts.kind
            AND o.leg = payouts.leg) AS was`
        if (rows.length === 0) return yield* new LostRace()
        // Its transfer left the collection address: the merchant is paid (once: the status it had is read in the same statement).
        const completed = p.status === "completed" && rows[0]!.was !== "completed"
        if (completed || effects.gas !== undefined) yield* postPayout(p, completed, effects.gas)
      }
      if (effects.payment !== undefined && !(yield* compareAndSet(sql, effects.payment))) return yield* new LostRace()
      yield* insertEvents(sql, effects.events ?? [])
      const refund = effects.refund
      if (refund !== undefined) {
        yield* sql`UPDATE refunds SET status = ${refund.status}, tx_hash = ${refund.txHash}, updated_at = ${refund.updatedAt}::bigint
          WHERE id = ${refund.id}`
      }
      return true
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("LostRace", () => Effect.succeed(false)),
      // Another live payout of the payment holds its funds (a retry racing a refund request).
      Effect.catchIf((error) => error._tag === "SqlError" && isUniqueViolation(error, oneLivePerPayment), () => Effect.succeed(false)),
      Effect.orDie
    )

  const update = (p: Payout, effects: PayoutEffects = {}) => updateAll([p], effects).pipe(spans.update)

  const reopen = (next: ReadonlyArray<Payout>, effects: PayoutEffects) => updateAll(next, effects).pipe(spans.reopen)

  return PayoutRepository.of({ find, listByPayment, undecided, decide, update, reopen })
})

/** `PayoutRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<PayoutRepository, never, SqlClient.SqlClient> = Layer.effect(PayoutRepository, make)
