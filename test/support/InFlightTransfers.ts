/**
 * The transfers a test server's worker had sent and not yet seen decided when its jobs stopped
 * (a settlement mined a moment before the test's last line, its completion not yet recorded): each
 * followed to the chain's decision, as the worker restarting would, so that the ledger meets the
 * chain as the reconciliation job finds it once the worker caught up. Nothing new is signed: a
 * payout, receipt refund or sweep without a recorded transfer stays as it is, and one whose
 * transfer moved nothing is left for its retry.
 */
import { Application, Chain } from "@paygate/adapters"
import { DepositStore, type DepositSweeper, DepositSweeps, type PaymentId, PayoutExecutions, type PayoutKey, type PayoutStep, type ReceiptId, ReceiptRefundExecutions } from "@paygate/domain"
import { Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"

// A step after which following again may decide it: the transfer not yet confirmed, or the chain not answering.
const undecided = (step: PayoutStep) => step === "pending" || step === "unknown"

// Advances until decided, for at most 20 s (a test that left its chain not mining leaves the transfer undecided).
const follow = (advance: Effect.Effect<PayoutStep>) =>
  advance.pipe(
    Effect.repeat({ while: undecided, schedule: Schedule.spaced("100 millis") }),
    Effect.timeoutOption("20 seconds")
  )

const followAll = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const payouts = yield* PayoutExecutions
  const refunds = yield* ReceiptRefundExecutions
  const sweeps = yield* DepositSweeps
  const store = yield* DepositStore

  const sentPayouts = yield* sql<{ readonly payment_id: string; readonly kind: PayoutKey["kind"]; readonly leg: number }>`
    SELECT payment_id, kind, leg FROM payouts WHERE status = 'pending' AND tx_hash IS NOT NULL`
  yield* Effect.forEach(sentPayouts, (row) =>
    follow(payouts.advance({ paymentId: row.payment_id as PaymentId, kind: row.kind, leg: row.leg })), { discard: true })

  const sentRefunds = yield* sql<{ readonly id: string }>`
    SELECT id FROM chain_receipts WHERE refund ->> 'status' = 'pending' AND jsonb_typeof(refund -> 'transfer') = 'object'`
  yield* Effect.forEach(sentRefunds, (row) => follow(refunds.advance(row.id as ReceiptId)), { discard: true })

  const due = yield* store.claim(10_000, 60_000)
  const sent = Map.groupBy(due.filter((sweep) => sweep.transfer !== null), (sweep) => sweep.transfer!.txHash)
  yield* Effect.forEach(sent.values(), (group) =>
    follow(Effect.map(sweeps.advance(group), (steps) => steps.some(([, step]) => undecided(step)) ? "pending" : "final")), { discard: true })
  yield* Effect.forEach(due, (sweep) => store.release(sweep, 0), { discard: true })
})

/** Follows every transfer the server's worker recorded and did not see decided; over the worker's own use cases and chain ports. */
export const followInFlightTransfers = followAll.pipe(
  Effect.provide(Layer.mergeAll(PayoutExecutions.layer, ReceiptRefundExecutions.layer, DepositSweeps.layer).pipe(
    Layer.provide(Layer.mergeAll(
      Application.payoutPorts,
      Chain.ViemDepositSweeper.layer as Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig>
    ))
  ))
)
