import { Clock, Context, Effect, Layer, Option, Result } from "effect"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { Payment } from "../payment/Payment.ts"
import { transition } from "../payment/StatusMachine.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { ReceiptStore, type RecordResult } from "../ports/ReceiptStore.ts"
import { Receipt } from "../receipt/Receipt.ts"
import { receiptView } from "../receipt/ReceiptView.ts"
import { makePaymentChanges } from "./PaymentChanges.ts"

// Bound on compare-and-set retries against concurrent changes of the payment.
const maxAttempts = 5

/** Whether `payment` succeeded with the transfer of `receipt` (its committed transaction). */
const succeededWith = (payment: Payment, receipt: Receipt) =>
  payment.status === "succeeded" && payment.commitment?.txHash?.toLowerCase() === receipt.txHash.toLowerCase()

/**
 * Undoing what the chain no longer holds: when a reorganisation deeper than a chain's confirmations
 * replaced blocks the watcher had read, each receipt of those blocks whose transfer is gone is marked
 * reversed (kept, never deleted: it no longer counts towards its payment and has nothing to refund).
 * A payment that succeeded with that transfer goes back to `processing` (`payment.processing`, its
 * stage `{reorged: true, receipt}`), in the same transaction: the executor follows its transaction
 * again, to `succeeded` once the transfer is mined again with its confirmations (a pull payment's
 * authorization is sent again while it is valid, else the payment fails). The same transfer read again
 * from the new chain is a new receipt, recorded once.
 */
export class ReceiptReversals extends Context.Service<ReceiptReversals, {
  /**
   * Reverses the receipts of `chainId` in blocks `fromBlock` to `toBlock` for which `onChain` answers
   * false; answers them as reversed (those another worker reversed first are left out).
   */
  readonly reverseRemoved: <E>(
    chainId: string,
    fromBlock: number,
    toBlock: number,
    onChain: (receipt: Receipt) => Effect.Effect<boolean, E>
  ) => Effect.Effect<ReadonlyArray<Receipt>, E>
}>()("@paygate/domain/ReceiptReversals") {
  /** Reversals over the ports in context. */
  static readonly layer = Layer.effect(
    ReceiptReversals,
    Effect.gen(function*() {
      const store = yield* ReceiptStore
      const repo = yield* PaymentRepository
      const { eventFor } = makePaymentChanges(repo, yield* IdGenerator)

      const attempt = (receipt: Receipt): Effect.Effect<{ readonly reversed: Receipt; readonly result: RecordResult }> =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const reversed = new Receipt({ ...receipt, reversedAt: millis }, { disableChecks: true })
          const found = receipt.paymentId === null ? Option.none() : yield* repo.findById(receipt.paymentId)
          const credited = Option.filter(found, (payment) => succeededWith(payment, receipt))
          if (Option.isNone(credited)) return { reversed, result: yield* store.reverse(receipt.id, millis, null, []) }
          const payment = credited.value
          const next = new Payment({
            ...payment,
            status: Result.getOrThrow(transition(payment.status, { _tag: "ChainReorged" })),
            stateVersion: payment.stateVersion + 1,
            updatedAt: Math.max(millis, payment.updatedAt)
          })
          const event = yield* eventFor("payment.processing", next, { reorged: true, receipt: receiptView(reversed) })
          return { reversed, result: yield* store.reverse(receipt.id, millis, next, [event]) }
        })

      const reverse = (receipt: Receipt) =>
        Effect.gen(function*() {
          for (let n = 1; ; n++) {
            const done = yield* attempt(receipt)
            if (done.result === "recorded") return Option.some(done.reversed)
            if (done.result === "duplicate") return Option.none()
            if (n >= maxAttempts) return yield* Effect.die(new Error(`payment ${receipt.paymentId} kept changing while its receipt ${receipt.id} was reversed`))
          }
        })

      const reverseRemoved = <E>(
        chainId: string,
        fromBlock: number,
        toBlock: number,
        onChain: (receipt: Receipt) => Effect.Effect<boolean, E>
      ) =>
        Effect.gen(function*() {
          const reversed: Array<Receipt> = []
          for (const receipt of yield* store.onChainIn(chainId, fromBlock, toBlock)) {
            if (yield* onChain(receipt)) continue
            const done = yield* reverse(receipt)
            if (Option.isSome(done)) reversed.push(done.value)
          }
          return reversed
        }).pipe(Effect.withSpan("ReceiptReversals.reverseRemoved"))

      return ReceiptReversals.of({ reverseRemoved })
    })
  )
}
