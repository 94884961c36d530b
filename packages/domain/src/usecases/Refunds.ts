import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { AlreadyRefunded, InvalidState, ParamsValidation, PaymentNotFound, PaymentNotSucceeded } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { PaymentId } from "../ids/Ids.ts"
import { statusAt } from "../payment/StatusMachine.ts"
import { pendingPayout } from "../payout/Payout.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { type PlannedRefund, RefundRepository } from "../ports/RefundRepository.ts"
import { Refund } from "../refund/Refund.ts"
import type { ClaimLink } from "../refund/RefundClaim.ts"
import { planRefund } from "../refund/RefundPlan.ts"
import { type Access, canSee } from "./Access.ts"
import { traced } from "./Traced.ts"

const isPaymentId = Schema.is(PaymentId)

/** How much to refund: `value` minor units of `unit`, which must be the payment's currency (`iso4217/USD`). */
export interface RefundAmount {
  readonly unit: string
  readonly value: string
}

// Minor units of the payment's own currency only: converting between currencies would change what "the paid amount" is.
const refundAmount = (currency: string, amount: RefundAmount) =>
  Effect.gen(function*() {
    if (!/^[1-9][0-9]{0,17}$/.test(amount.value)) {
      return yield* new ParamsValidation({ message: "amount.value must be a positive whole number of minor units, such as \"1250\"." })
    }
    if (amount.unit !== `iso4217/${currency}`) {
      return yield* new ParamsValidation({ message: `amount.unit must be the payment's currency, iso4217/${currency}.` })
    }
    return BigInt(amount.value)
  })

/**
 * Refunds of succeeded payments (API rules §11), whole or in part: the worker sends tokens back
 * from the collection address (refund payouts). `amount` is in the payment's currency (minor
 * units); its token value is its share of the committed token amount rounded down, and the refund
 * that uses up the payment sends exactly the tokens left (`planRefund`). A payment may be refunded
 * several times until its amount is used up; asking for more than is left is `already_refunded`.
 * A payment paid in parts is refunded part by part: each sender gets back from what their parts
 * counted towards it (one payout per sender).
 *
 * A payment's funds leave once: a refund requested before the payment's settlement transfer was
 * signed withdraws that settlement; once it was signed (or completed) the funds are the
 * merchant's and the refund is refused with `invalid_state`.
 */
export class Refunds extends Context.Service<Refunds, {
  /**
   * Requests a refund of `amount` (the payment's currency, minor units; absent: all that is left): not
   * succeeded → `payment_not_succeeded`; nothing or less than `amount` left → `already_refunded`;
   * too small for one token unit → `params_validation`; settled (or being settled) → `invalid_state`.
   * With `claim`, the refund goes to an address the buyer chooses through that link: it reserves its
   * amount like any refund but has no payout until claimed (`RefundClaims`).
   */
  readonly request: (
    access: Access,
    paymentId: string,
    amount?: RefundAmount,
    claim?: ClaimLink
  ) => Effect.Effect<Refund, PaymentNotFound | PaymentNotSucceeded | AlreadyRefunded | ParamsValidation | InvalidState>
}>()("@paygate/domain/Refunds") {
  /**
   * The use case over the payment and refund repositories in context. The refund store plans each
   * refund with the payment locked, so concurrent requests never refund more than was paid.
   */
  static readonly layer = Layer.effect(
    Refunds,
    Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const refunds = yield* RefundRepository
      const ids = yield* IdGenerator
      // Without a receipt store (a host keeping no receipts), a refund goes back to the committed account.
      const receipts = yield* Effect.serviceOption(ReceiptStore)

      const request = Effect.fnUntraced(function*(access: Access, paymentId: string, amount?: RefundAmount, claim?: ClaimLink) {
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
        if (payment.hold !== undefined) {
          return yield* new InvalidState({
            message: `Payment ${payment.id} was captured from the escrow straight to the merchant's settlement destination; the service holds none of it, so refund the buyer from that account.`
          })
        }
        const commitment = payment.commitment
        if (commitment === null) return yield* Effect.die(new Error(`succeeded payment ${payment.id} has no commitment`))
        const requested = amount === undefined ? null : yield* refundAmount(payment.currency, amount)
        const id = yield* ids.make("refund")
        const parts = Option.isSome(receipts)
          ? yield* receipts.value.list({
            owner: { partnerId: payment.partnerId, mode: payment.mode },
            paymentId: payment.id,
            outcomes: ["paid", "overpaid"],
            after: null,
            limit: 1000
          })
          : []
        return yield* refunds.insert(payment.id, (prior): Effect.Effect<PlannedRefund, AlreadyRefunded | ParamsValidation> => {
          const plan = planRefund({ value: payment.value, commitment }, parts, prior, requested)
          if (plan._tag === "Exceeds") {
            const done = prior.refunds.map((r) => r.id).join(", ")
            return Effect.fail(
              new AlreadyRefunded({
                message: plan.remaining === 0n
                  ? `Payment ${payment.id} is already refunded in full (${done}).`
                  : `Payment ${payment.id} has ${plan.remaining} ${payment.currency} minor units left to refund (after ${done}); ` +
                    `${requested} is more than that.`
              })
            )
          }
          if (plan._tag === "TooSmall") {
            return Effect.fail(
              new ParamsValidation({
                message: `amount ${requested} is less than one unit of the token paid; the least refundable is ${plan.minimum}.`
              })
            )
          }
          const refund = new Refund({
            id,
            paymentId: payment.id,
            partnerId: payment.partnerId,
            currency: payment.currency,
            amount: plan.amount,
            value: plan.value,
            status: "pending",
            txHash: null,
            createdAt: millis,
            updatedAt: millis
          })
          if (claim !== undefined) return Effect.succeed({ refund, payouts: [], claim })
          const payouts = plan.legs.map((leg, index) =>
            pendingPayout({
              paymentId: payment.id,
              kind: "refund",
              leg: plan.firstLeg + index,
              refundId: refund.id,
              asset: commitment.asset,
              recipient: leg.recipient,
              value: leg.value
            }, millis)
          )
          return Effect.succeed({ refund, payouts })
        })
      }, traced("Refunds.request"))

      return Refunds.of({ request })
    })
  )
}
