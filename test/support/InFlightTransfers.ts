/**
 * The transfers a test server's worker had sent, that the chain mined, and whose outcome it had not
 * recorded when its jobs stopped (a settlement mined a moment before the test's last line): each
 * followed to the chain's decision, as the worker restarting would, so that the ledger meets the
 * chain as the reconciliation job finds it once the worker caught up. Nothing is signed or sent: a
 * payout, receipt refund or sweep whose transfer the chain has not mined (not sent yet, or a
 * test's stand-in) moved nothing on chain and stays as it is.
 */
import { Chain, WorkerPorts } from "@paygate/adapters"
import { DepositStore, type DepositSweeper, DepositSweeps, type PaymentId, PayoutExecutions, type PayoutKey, type PayoutStep, type ReceiptId, ReceiptRefundExecutions } from "@paygate/domain"
import { Effect, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import type { Hex } from "viem"

// A step after which following again may decide it: the transfer not yet confirmed, or the chain not answering.
const undecided = (step: PayoutStep) => step === "pending" || step === "unknown"

// Advances until decided, for at most 20 s (a test that left its chain not mining leaves the transfer undecided).
const follow = (advance: Effect.Effect<PayoutStep>) =>
  advance.pipe(
    Effect.repeat({ while: undecided, schedule: Schedule.spaced("100 millis") }),
    Effect.timeoutOption("20 seconds")
  )

type WatchedChain = Chain.TransferLogs.WatchedChain

const followAll = (chains: ReadonlyArray<WatchedChain>) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const payouts = yield* PayoutExecutions
  const refunds = yield* ReceiptRefundExecutions
  const sweeps = yield* DepositSweeps
  const store = yield* DepositStore

  // Whether the chain `chainId` mined the transaction `txHash`.
  const mined = (chainId: string, txHash: string) => {
    const chain = chains.find((c) => c.chainId === chainId)
    return Effect.promise(() =>
      chain === undefined ? Promise.resolve(false) : chain.client.getTransactionReceipt({ hash: txHash as Hex }).then(() => true, () => false)
    )
  }

  let decided = 0
  // Follows `advance` when the chain mined `txHash`, counting it when it came to a decision.
  const whenMined = (chainId: string, txHash: string, advance: Effect.Effect<PayoutStep>) =>
    Effect.flatMap(mined(chainId, txHash), (yes) =>
      yes
        ? Effect.map(follow(advance), (step) => {
          if (Option.isSome(step) && !undecided(step.value)) decided++
        })
        : Effect.void)

  const sentPayouts = yield* sql<{ readonly payment_id: string; readonly kind: PayoutKey["kind"]; readonly leg: number; readonly asset: string; readonly tx_hash: string }>`
    SELECT payment_id, kind, leg, asset, tx_hash FROM payouts WHERE status = 'pending' AND tx_hash IS NOT NULL`
  yield* Effect.forEach(sentPayouts, (row) =>
    whenMined(row.asset.split("/")[0]!, row.tx_hash, payouts.advance({ paymentId: row.payment_id as PaymentId, kind: row.kind, leg: row.leg })), { discard: true })

  const sentRefunds = yield* sql<{ readonly id: string; readonly chain_id: string; readonly tx_hash: string }>`
    SELECT id, chain_id, refund -> 'transfer' ->> 'txHash' AS tx_hash FROM chain_receipts
    WHERE refund ->> 'status' = 'pending' AND jsonb_typeof(refund -> 'transfer') = 'object'`
  yield* Effect.forEach(sentRefunds, (row) => whenMined(row.chain_id, row.tx_hash, refunds.advance(row.id as ReceiptId)), { discard: true })

  const due = yield* store.claim(10_000, 60_000)
  const sent = Map.groupBy(due.filter((sweep) => sweep.transfer !== null), (sweep) => sweep.transfer!.txHash)
  yield* Effect.forEach(sent, ([txHash, group]) =>
    whenMined(group[0]!.chainId, txHash, Effect.map(sweeps.advance(group), (steps) => steps.some(([, step]) => undecided(step)) ? "pending" : "final")), { discard: true })
  yield* Effect.forEach(due, (sweep) => store.release(sweep, 0), { discard: true })
  return decided
})

/**
 * Follows every transfer of `chains` the server's worker recorded and the chain mined, over the worker's own use cases
 * and chain ports; answers how many of them it brought to a decision (0: the ledger did not move).
 */
export const followInFlightTransfers = (chains: ReadonlyArray<WatchedChain>) => followAll(chains).pipe(
  Effect.provide(Layer.mergeAll(PayoutExecutions.layer, ReceiptRefundExecutions.layer, DepositSweeps.layer).pipe(
    Layer.provide(Layer.mergeAll(
      WorkerPorts.payoutPorts,
      Chain.ViemDepositSweeper.layer as Layer.Layer<DepositSweeper, never, Chain.ChainConfig.ChainsConfig>
    ))
  ))
)
