import { IdGenerator, type Payment, Refund, RefundRepository } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { payoutOf, succeededPayment } from "./support/PayoutFixtures.ts"

const refundOf = (payment: Payment) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new Refund({
      id: yield* ids.make("refund"),
      paymentId: payment.id,
      partnerId: payment.partnerId,
      status: "pending",
      txHash: null,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000
    })
  })

/** Inserts `refund` with the payout that executes it. */
const insert = (refund: Refund, payment: Payment) =>
  RefundRepository.use((repo) => repo.insert(refund, [payoutOf(payment, "refund", refund)]))

adapterSuite("SqlRefundRepository", (it) => {
  it.effect("stores and finds a refund; a second one for the payment is already_refunded", () =>
    Effect.gen(function*() {
      const repo = yield* RefundRepository
      const payment = yield* succeededPayment()
      assert.isTrue(Option.isNone(yield* repo.findByPayment(payment.id)))
      const first = yield* refundOf(payment)
      yield* insert(first, payment)
      assert.deepStrictEqual(yield* repo.findByPayment(payment.id), Option.some(first))
      const error = yield* Effect.flip(insert(yield* refundOf(payment), payment))
      assert.strictEqual(error._tag, "AlreadyRefunded")
      assert.include(error.message, first.id)
    }))

  it.effect("of two concurrent refunds of a payment exactly one is stored", () =>
    Effect.gen(function*() {
      const repo = yield* RefundRepository
      for (let round = 0; round < 5; round++) {
        const payment = yield* succeededPayment()
        const attempts = [yield* refundOf(payment), yield* refundOf(payment), yield* refundOf(payment)]
        const outcomes = yield* Effect.all(attempts.map((r) => Effect.result(insert(r, payment))), { concurrency: "unbounded" })
        const won = outcomes.filter((o) => o._tag === "Success")
        const lost = outcomes.filter((o) => o._tag === "Failure")
        assert.strictEqual(won.length, 1)
        assert.strictEqual(lost.length, 2)
        for (const o of lost) if (o._tag === "Failure") assert.strictEqual(o.failure._tag, "AlreadyRefunded")
        const stored = Option.getOrThrow(yield* repo.findByPayment(payment.id))
        assert.isTrue(attempts.some((r) => r.id === stored.id))
      }
    }))
})
