import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { AlreadyRefunded, InvalidState, PaymentNotFound } from "../errors/ApiErrors.ts"
import { ReceiptId } from "../ids/Ids.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { Receipt, ReceiptRefund, refundableValue } from "../receipt/Receipt.ts"
import type { PartnerAccess } from "./Merchants.ts"

const isReceiptId = Schema.is(ReceiptId)

/** Whether `access` may see (and refund) the receipt: its payment's partner and mode, or anyone for an unmatched one. */
const canSee = (access: PartnerAccess, receipt: Receipt) =>
  receipt.paymentId === null || (receipt.partnerId === access.partnerId && receipt.mode === access.mode)

/**
 * Refunds of receipts: what a payment did not keep (an overpayment's excess, an underpaid, late or
 * unmatched transfer) goes back to its sender, from the collection address, like a payment's refund.
 * `request` (`POST /v1/receipts/{id}/refund`) records it; the worker sends it
 * (`ReceiptRefundExecutions`).
 */
export class ReceiptRefunds extends Context.Service<ReceiptRefunds, {
  readonly request: (access: PartnerAccess, id: string) => Effect.Effect<Receipt, PaymentNotFound | InvalidState | AlreadyRefunded>
}>()("@paygate/domain/ReceiptRefunds") {
  /** Receipt refunds over the store in context. */
  static readonly layer = Layer.effect(
    ReceiptRefunds,
    Effect.gen(function*() {
      const store = yield* ReceiptStore

      const request = Effect.fn("ReceiptRefunds.request")(function*(access: PartnerAccess, id: string) {
        const found = isReceiptId(id) ? yield* store.find(id) : Option.none()
        if (Option.isNone(found) || !canSee(access, found.value)) return yield* new PaymentNotFound({ message: "No receipt with this id." })
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
          requestedBy: access.partnerId,
          transfer: null,
          attempts: 0,
          version: 1,
          requestedAt: millis,
          updatedAt: millis
        })
        if (!(yield* store.saveRefund(receipt.id, refund))) {
          // Refunded meanwhile, or an underpaid receipt that a later transfer completed meanwhile.
          const now = yield* store.find(receipt.id)
          return yield* (Option.isSome(now) && now.value.refund === null
            ? new InvalidState({ message: `Receipt ${id} paid its payment: it has nothing to refund.` })
            : new AlreadyRefunded({ message: `Receipt ${id} is already refunded.` }))
        }
        return new Receipt({ ...receipt, refund }, { disableChecks: true })
      })

      return ReceiptRefunds.of({ request })
    })
  )
}
