import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { AlreadyRefunded, type InvalidState, PaymentNotFound, PaymentNotSucceeded } from "../errors/ApiErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { PaymentId } from "../ids/Ids.ts"
import { statusAt } from "../payment/StatusMachine.ts"
import { pendingPayout } from "../payout/Payout.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"
import { Refund } from "../refund/Refund.ts"
import { refundLegs } from "../refund/RefundLegs.ts"
import { type Access, canSee } from "./Access.ts"
import { traced } from "./Traced.ts"

const isPaymentId = Schema.is(PaymentId)

/**
 * Full refunds of succeeded payments (API rules §11): the worker sends the token amount the payer
 * paid back to the payer's account, from the collection address (a refund payout). A payment paid
 * in parts is refunded part by part: each sender gets back what their parts counted towards it
 * (one payout per sender, `refundLegs`).
 *
 * A payment's funds leave the collection address once. A refund requested before the payment's
 * settlement transfer was signed withdraws that settlement; once it was signed (or completed) the
 * funds are the merchant's and the refund is refused with `invalid_state`.
 */
export class Refunds extends Context.Service<Refunds, {
  /**
   * Requests the refund: not succeeded → `payment_not_succeeded`; a second → `already_refunded`;
   * settled (or being settled) → `invalid_state`.
   */
  readonly request: (
    access: Access,
    paymentId: string
  ) => Effect.Effect<Refund, PaymentNotFound | PaymentNotSucceeded | AlreadyRefunded | InvalidState>
}>()("@paygate/domain/Refunds") {
  /**
   * The use case over the payment and refund repositories in context. The refund store has the
   * last word on "one per payment" and on settlements: of two concurrent requests, its insert
   * fails the loser.
   */
  static readonly layer = Layer.effect(
    Refunds,
    Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const refunds = yield* RefundRepository
      const ids = yield* IdGenerator
      // Without a receipt store (a host keeping no receipts), a refund goes back whole to the committed account.
      const receipts = yield* Effect.serviceOption(ReceiptStore)

      const request = Effect.fnUntraced(function*(access: Access, paymentId: string) {
        const found = isPaymentId(paymentId) ? yield* payments.findById(paymentId) : Option.none()
        if (Option.isNone(found) || !canSee(access, found.value)) {
          return yield* new PaymentNotFound({ message: `No payment ${paymentId}.` })
        }
        const payment = found.value
        const millis = yield* Clock.currentTimeMillis
        const status = statusAt(payment, Math.floor(millis / 1000))
        if (status !== "succeeded") {
          return yield* new PaymentNotSucceeded({
            message: `Payment ${payment.id} is ${status}; only succeeded payments can be refunded.`
          })
        }
        const existing = yield* refunds.findByPayment(payment.id)
        if (Option.isSome(existing)) {
          return yield* new AlreadyRefunded({ message: `Payment ${payment.id} already has refund ${existing.value.id}.` })
        }
        const commitment = payment.commitment
        if (commitment === null) return yield* Effect.die(new Error(`succeeded payment ${payment.id} has no commitment`))
        const refund = new Refund({
          id: yield* ids.make("refund"),
          paymentId: payment.id,
          partnerId: payment.partnerId,
          status: "pending",
          txHash: null,
          createdAt: millis,
          updatedAt: millis
        })
        // The token amount paid, back to the paying account: to each sender its parts' amount.
        const parts = Option.isSome(receipts)
          ? yield* receipts.value.list({
            owner: { partnerId: payment.partnerId, mode: payment.mode },
            paymentId: payment.id,
            outcomes: ["paid", "overpaid"],
            after: null,
            limit: 1000
          })
          : []
        const payouts = refundLegs(commitment, parts).map((leg, index) =>
          pendingPayout({
            paymentId: payment.id,
            kind: "refund",
            leg: index,
            refundId: refund.id,
            asset: commitment.asset,
            recipient: leg.recipient,
            value: leg.value
          }, millis)
        )
        yield* refunds.insert(refund, payouts)
        return refund
      }, traced("Refunds.request"))

      return Refunds.of({ request })
    })
  )
}
