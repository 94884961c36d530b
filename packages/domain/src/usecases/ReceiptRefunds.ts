import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { AlreadyRefunded, InvalidState, PaymentNotFound } from "../errors/DomainErrors.ts"
import { type PartnerId, ReceiptId } from "../ids/Ids.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { Receipt, ReceiptRefund, refundableValue } from "../receipt/Receipt.ts"
import type { PartnerAccess } from "./Merchants.ts"

const isReceiptId = Schema.is(ReceiptId)

/**
 * Whether `access` may see (and refund) the receipt: its owner's partner and mode (its payment's, or
 * for an unmatched one at a deposit address, the address's payment's). Other unmatched receipts
 * are the operator's.
 */
const canSee = (access: PartnerAccess, receipt: Receipt) => receipt.partnerId === access.partnerId && receipt.mode === access.mode

/**
 * Refunds of receipts: what a payment did not keep (an overpayment's excess, an underpaid, late or
 * unmatched transfer) goes back to its sender, from the collection address, like a payment's refund.
 * `request` (`POST /v1/receipts/{id}/refund`) records it for the receipt's partner;
 * `requestAsOperator` (`paygate-admin receipt refund`) for an unmatched receipt no partner owns. The
 * worker sends it (`ReceiptRefundExecutions`).
 */
export class ReceiptRefunds extends Context.Service<ReceiptRefunds, {
  readonly request: (access: PartnerAccess, id: string) => Effect.Effect<Receipt, PaymentNotFound | InvalidState | AlreadyRefunded>
  /**
   * Makes a failed refund pending again (`POST /v1/receipts/{id}/refund/retry`, or the operator
   * with `"operator"`): its value is still owed to the sender, since a failed refund moved nothing.
   * It keeps its last transfer, which the worker reads from the chain before signing a new one (a
   * transfer that went through after all completes it: never paid twice). An unmatched receipt's
   * refund is retried only by the partner that asked for it. Not refunded, or not failed (two
   * retries at once: one of them) → `invalid_state`.
   */
  readonly retry: (access: PartnerAccess | "operator", id: string) => Effect.Effect<Receipt, PaymentNotFound | InvalidState>
  readonly requestAsOperator: (id: string) => Effect.Effect<Receipt, PaymentNotFound | InvalidState | AlreadyRefunded>
}>()("@paygate/domain/ReceiptRefunds") {
  /** Receipt refunds over the store in context. */
  static readonly layer = Layer.effect(
    ReceiptRefunds,
    Effect.gen(function*() {
      const store = yield* ReceiptStore

      // Records the refund of receipt `id` if `owns` it, asked for by `requestedBy`.
      const requestFor = Effect.fnUntraced(function*(id: string, owns: (receipt: Receipt) => boolean, requestedBy: PartnerId | null) {
        const found = isReceiptId(id) ? yield* store.find(id) : Option.none()
        if (Option.isNone(found) || !owns(found.value)) return yield* new PaymentNotFound({ message: "No receipt with this id." })
        const receipt = found.value
        if (receipt.refund !== null) return yield* new AlreadyRefunded({ message: `Receipt ${id} is already refunded.` })
        if (receipt.reversedAt !== null) {
          return yield* new InvalidState({ message: `Receipt ${id} was removed from the chain by a reorganisation: nothing arrived to refund.` })
        }
        // Tokens minted to the collection address come from the zero address: nobody to send them back to.
        if (/:0x0{40}$/i.test(receipt.from)) return yield* new InvalidState({ message: `Receipt ${id} was minted: it has no sender to refund.` })
        const value = refundableValue(receipt)
        if (value <= 0n) return yield* new InvalidState({ message: `Receipt ${id} paid its payment: it has nothing to refund.` })
        const millis = yield* Clock.currentTimeMillis
        const refund = new ReceiptRefund({
          status: "pending",
          value,
          requestedBy,
          transfer: null,
          attempts: 0,
          version: 1,
          requestedAt: millis,
          updatedAt: millis
        })
        if (!(yield* store.saveRefund(receipt.id, refund))) {
          // Refunded meanwhile, or an underpaid receipt that a later transfer completed meanwhile.
          // Or its transfer was refunded under the receipt a reorganisation reversed.
          const now = yield* store.find(receipt.id)
          if (Option.isSome(now) && now.value.refund === null && now.value.outcome === "paid") {
            return yield* new InvalidState({ message: `Receipt ${id} paid its payment: it has nothing to refund.` })
          }
          return yield* new AlreadyRefunded({
            message: Option.isSome(now) && now.value.refund === null
              ? `The transfer of receipt ${id} is already refunded under its receipt from before a reorganisation.`
              : `Receipt ${id} is already refunded.`
          })
        }
        return new Receipt({ ...receipt, refund }, { disableChecks: true })
      })

      const retry = Effect.fn("ReceiptRefunds.retry")(function*(access: PartnerAccess | "operator", id: string) {
        const found = isReceiptId(id) ? yield* store.find(id) : Option.none()
        const mayRetry = (receipt: Receipt) =>
          access === "operator" ||
          (canSee(access, receipt) && (receipt.paymentId !== null || receipt.refund?.requestedBy === access.partnerId))
        if (Option.isNone(found) || !mayRetry(found.value)) return yield* new PaymentNotFound({ message: "No receipt with this id." })
        const receipt = found.value
        const refund = receipt.refund
        if (refund === null) return yield* new InvalidState({ message: `Receipt ${id} has no refund to retry; ask for one first.` })
        if (refund.status !== "failed") {
          return yield* new InvalidState({ message: `The refund of receipt ${id} is ${refund.status}; only a failed one can be retried.` })
        }
        if (receipt.reversedAt !== null) {
          return yield* new InvalidState({ message: `Receipt ${id} was removed from the chain by a reorganisation: nothing arrived to refund.` })
        }
        const millis = yield* Clock.currentTimeMillis
        const next = new ReceiptRefund({ ...refund, status: "pending", attempts: 0, version: refund.version + 1, updatedAt: Math.max(millis, refund.updatedAt) })
        if (!(yield* store.saveRefund(receipt.id, next))) {
          return yield* new InvalidState({ message: `The refund of receipt ${id} changed meanwhile (retried already?); look again.` })
        }
        yield* Effect.logInfo(`receipt refund: ${receipt.id} is retried`)
        return new Receipt({ ...receipt, refund: next }, { disableChecks: true })
      })

      const request = Effect.fn("ReceiptRefunds.request")(function*(access: PartnerAccess, id: string) {
        return yield* requestFor(id, (receipt) => canSee(access, receipt), access.partnerId)
      })

      const requestAsOperator = Effect.fn("ReceiptRefunds.requestAsOperator")(function*(id: string) {
        return yield* requestFor(id, (receipt) => receipt.partnerId === null, null)
      })

      return ReceiptRefunds.of({ request, requestAsOperator, retry })
    })
  )
}
