import { Clock, Context, Effect, Layer, Option } from "effect"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { OptionClaims } from "../gateway/OptionId.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import { Commitment, Payment } from "../payment/Payment.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { QuoteStore, type StoredQuote } from "../ports/QuoteStore.ts"
import { ReceiptStore, type RecordResult } from "../ports/ReceiptStore.ts"
import { type ObservedTransfer, Receipt, type ReceiptOutcome } from "../receipt/Receipt.ts"
import { receiptView } from "../receipt/ReceiptView.ts"
import { makePaymentChanges } from "./PaymentChanges.ts"

/** Wallet name recorded on commitments the watcher makes (no wallet confirmed them). */
export const watcherWalletName = "On-chain transfer"

// Bound on compare-and-set retries against concurrent changes of the payment.
const maxAttempts = 5

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** The deposit address (lower-case) a transfer reached; `null`: the collection address. */
const depositOf = (transfer: ObservedTransfer) =>
  transfer.deposit === undefined ? null : transfer.deposit.account.slice(transfer.deposit.account.lastIndexOf(":") + 1).toLowerCase()

const receiptFingerprintPrefix = "receipt:"

/** The fingerprint of the commitment the watcher makes for a transfer: its log. */
const receiptFingerprint = (transfer: ObservedTransfer) =>
  `${receiptFingerprintPrefix}${transfer.chainId}:${transfer.txHash.toLowerCase()}:${transfer.logIndex}`

/**
 * Whether the transfer is the payment's own committed one: a confirmed push, or the transfer its
 * committed authorization made (by its nonce, from the committed account, of the committed amount),
 * whoever submitted it.
 */
const isOwnTransfer = (payment: Payment, transfer: ObservedTransfer) => {
  const commitment = payment.commitment
  if (commitment === null) return false
  // One the watcher committed is that one log: another transfer of its transaction (a batch) is not it.
  if (commitment.txHash !== null && same(commitment.txHash, transfer.txHash)) {
    return !commitment.fingerprint.startsWith(receiptFingerprintPrefix) || commitment.fingerprint === receiptFingerprint(transfer)
  }
  return commitment.authorization !== null && transfer.reference !== null && same(commitment.authorization.nonce, transfer.reference) &&
    same(commitment.account, transfer.from) && commitment.tokenAmount === transfer.value
}

/**
 * The quote of a deposit address that held when its transfer was mined (block time, Unix seconds):
 * the last one quoted at or before it, else (a block stamped a moment before the quote) the first.
 */
export const quoteAt = (history: ReadonlyArray<StoredQuote>, blockTime: number): Option.Option<StoredQuote> =>
  Option.orElse(Option.fromNullishOr(history.findLast((q) => q.claims.quotedAt <= blockTime)), () => Option.fromNullishOr(history[0]))

/**
 * Whether the transfer arrived while the payment waited for it: no commitment, stored as
 * `requires_action`, mined before the payment's and the quote's expiry. The block's time decides,
 * not the watcher's: a transfer mined in time is in time.
 */
const arrivedWhileWaiting = (payment: Payment, claims: OptionClaims, transfer: ObservedTransfer) =>
  payment.status === "requires_action" && payment.commitment === null &&
  transfer.blockTime < payment.expiresAt && (claims.expiresAt === null || transfer.blockTime < claims.expiresAt)

/**
 * The outcome of a transfer matched to `payment` through the option `claims`: the payment's own
 * transfer is `paid` (`late` once the payment failed); one arriving while the payment waited is judged by amount against what it
 * still asks for, the option's amount less `credited` (the underpaid transfers of the same token
 * already received); any other is `late`.
 */
export const judge = (payment: Payment, claims: OptionClaims, transfer: ObservedTransfer, credited = 0n): ReceiptOutcome => {
  // A failed payment kept nothing: its authorization used after all is the buyer's money to give back.
  if (isOwnTransfer(payment, transfer)) return payment.status === "failed" ? "late" : "paid"
  if (!arrivedWhileWaiting(payment, claims, transfer)) return "late"
  const expected = BigInt(claims.value) - credited
  return transfer.value === expected ? "paid" : transfer.value > expected ? "overpaid" : "underpaid"
}

/**
 * The underpaid receipts that count towards what a payment still asks for in `asset`: not being
 * refunded, still on chain, and together less than `asked` (a re-quote may have lowered the amount below what
 * they add up to: then none counts, and each stays refundable).
 */
export const creditable = (receipts: ReadonlyArray<Receipt>, asset: string, asked: bigint): ReadonlyArray<Receipt> => {
  const parts = receipts.filter((r) => r.outcome === "underpaid" && r.refund === null && r.reversedAt === null && same(r.asset, asset))
  return valueOf(parts) < asked ? parts : []
}

/** Token base units of `receipts` together. */
export const valueOf = (receipts: ReadonlyArray<Receipt>): bigint => receipts.reduce((sum, r) => sum + r.value, 0n)

/** The underpaid receipts of `payment` (few: each is a part the buyer sent), for {@link creditable}. */
export const underpaidReceipts = (store: ReceiptStore["Service"], payment: Payment) =>
  store.list({
    owner: { partnerId: payment.partnerId, mode: payment.mode },
    paymentId: payment.id,
    outcomes: ["underpaid"],
    after: null,
    limit: 1000
  })

/**
 * Reconciliation from the chain: each transfer into a collection address becomes a receipt, matched
 * to a payment by the reference its transaction carried (a push transfer's 16 bytes, or an EIP-3009
 * nonce); a transfer into a payment's deposit address is matched by the address, against the
 * deposit quote of that address that held when it was mined ({@link quoteAt}; same rules). Underpaid
 * transfers of the same token add up: each later one is judged against what is still asked for.
 * A transfer that pays a waiting payment (`paid`, `overpaid`) moves it to `processing` with
 * the same commitment, event and stage a confirm would make (the executor then watches it to
 * `succeeded`), and the underpaid receipts it completes become `paid`; `underpaid` and `late` ones
 * leave its status as it is and emit `payment.transfer_received` (an underpaid one also bumps the
 * payment's state version, so that two transfers arriving together are judged one after the other);
 * unmatched ones are kept: the operator's, or, at a deposit address in an accepted token, its
 * payment's partner's (in its mode). Receipt, payment change and event are written in one transaction, and a
 * log already recorded (a rescan after a restart or by another worker) changes nothing.
 */
export class Reconciliation extends Context.Service<Reconciliation, {
  readonly reconcile: (transfer: ObservedTransfer) => Effect.Effect<{ readonly receipt: Receipt; readonly result: RecordResult }>
}>()("@paygate/domain/Reconciliation") {
  /** Reconciliation over the ports in context. */
  static readonly layer = Layer.effect(
    Reconciliation,
    Effect.gen(function*() {
      const quotes = yield* QuoteStore
      const repo = yield* PaymentRepository
      const store = yield* ReceiptStore
      const ids = yield* IdGenerator
      const { eventFor } = makePaymentChanges(repo, ids)

      // A deposit's transfer: the latest deposit quote of its address; any other: the quote of its reference.
      const quoteOf = (transfer: ObservedTransfer): Effect.Effect<Option.Option<StoredQuote>> => {
        if (transfer.unlisted === true) return Effect.succeed(Option.none())
        const deposit = transfer.deposit
        if (deposit !== undefined) {
          return Effect.map(
            quotes.history(deposit.paymentId, deposit.account, transfer.asset),
            (history) => Option.filter(quoteAt(history, transfer.blockTime), (q) => q.claims.kind === "deposit")
          )
        }
        if (transfer.reference === null) return Effect.succeed(Option.none())
        return Effect.map(
          quotes.byNonce(transfer.reference),
          // A deposit quote's nonce is never handed out: a reference can only match a push or pull quote.
          Option.filter((q) => same(q.claims.asset, transfer.asset) && q.claims.kind !== "deposit")
        )
      }

      const attempt = (transfer: ObservedTransfer) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const id = yield* ids.make("receipt")
          const quote = yield* quoteOf(transfer)
          const found = Option.isNone(quote) ? Option.none() : yield* repo.findById(quote.value.claims.paymentId as Payment["id"])
          const base = { ...transfer, id, recordedAt: millis, refund: null, reversedAt: null }
          if (Option.isNone(quote) || Option.isNone(found)) {
            // What reached a deposit address unquoted in an accepted token belongs to the address's payment's owner.
            const owner = transfer.deposit === undefined || transfer.unlisted === true
              ? Option.none()
              : yield* repo.findById(transfer.deposit.paymentId as Payment["id"])
            const receipt = new Receipt({
              ...base,
              outcome: "unmatched",
              paymentId: null,
              partnerId: Option.isSome(owner) ? owner.value.partnerId : null,
              mode: Option.isSome(owner) ? owner.value.mode : null,
              expectedValue: null,
              paymentStatus: null
            })
            return { receipt, result: yield* store.record(receipt, null, [], [], depositOf(transfer)) }
          }
          const payment = found.value
          const claims = quote.value.claims
          const parts = arrivedWhileWaiting(payment, claims, transfer) && !isOwnTransfer(payment, transfer)
            ? creditable(yield* underpaidReceipts(store, payment), claims.asset, BigInt(claims.value))
            : []
          const credited = valueOf(parts)
          const outcome = judge(payment, claims, transfer, credited)
          const receipt = new Receipt({
            ...base,
            outcome,
            paymentId: payment.id,
            partnerId: payment.partnerId,
            mode: payment.mode,
            expectedValue: BigInt(claims.value) - credited,
            paymentStatus: payment.status
          })
          const stage = { receipt: receiptView(receipt) }
          if (outcome === "paid" && isOwnTransfer(payment, transfer)) {
            return { receipt, result: yield* store.record(receipt, null, [], [], depositOf(transfer)) }
          }
          if (outcome === "paid" || outcome === "overpaid") {
            const commitment = new Commitment({
              kind: "push",
              account: transfer.from,
              asset: claims.asset,
              tokenAmount: BigInt(claims.value),
              fingerprint: receiptFingerprint(transfer),
              txHash: transfer.txHash.toLowerCase(),
              authorization: null,
              reference: transfer.reference,
              walletName: watcherWalletName,
              confirmedAt: Math.floor(millis / 1000),
              ...(transfer.deposit === undefined ? {} : { recipient: transfer.deposit.account })
            })
            const next = new Payment({
              ...payment,
              status: "processing",
              commitment,
              stateVersion: payment.stateVersion + 1,
              updatedAt: Math.max(millis, payment.updatedAt)
            })
            // The stage a confirm writes, and the receipt.
            const event = yield* eventFor("payment.processing", next, {
              account: commitment.account,
              asset: commitment.asset,
              amount: commitment.tokenAmount.toString(),
              ...stage
            })
            return { receipt, result: yield* store.record(receipt, next, [event], parts.map((r) => r.id), depositOf(transfer)) }
          }
          // The status does not change. An underpaid transfer bumps the state version: the next one
          // is judged with it counted (a concurrent one loses the compare-and-set and is judged again).
          const current = outcome === "underpaid"
            ? new Payment({ ...payment, stateVersion: payment.stateVersion + 1, updatedAt: Math.max(millis, payment.updatedAt) }, { disableChecks: true })
            : payment
          const event = new OutboxEvent({
            id: yield* ids.make("event"),
            type: "payment.transfer_received",
            partnerId: payment.partnerId,
            paymentId: payment.id,
            payment: current,
            stage,
            createdAt: Math.floor(millis / 1000)
          }, { disableChecks: true })
          return { receipt, result: yield* store.record(receipt, outcome === "underpaid" ? current : null, [event], [], depositOf(transfer)) }
        })

      const reconcile = Effect.fn("Reconciliation.reconcile")(function*(transfer: ObservedTransfer) {
        for (let n = 1; ; n++) {
          const done = yield* attempt(transfer)
          if (done.result !== "stale" || n >= maxAttempts) return done
        }
      })

      return Reconciliation.of({ reconcile })
    })
  )
}
