import { AlreadyRefunded, IdGenerator, type Payment, Payout, PayoutRepository, type PriorRefunds, Refund, RefundRepository } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { payoutOf, succeededPayment } from "./support/PayoutFixtures.ts"
import { loggingStatements } from "./support/StatementLog.ts"

const refundOf = (payment: Payment, amount: bigint) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new Refund({
      id: yield* ids.make("refund"),
      paymentId: payment.id,
      partnerId: payment.partnerId,
      currency: payment.currency,
      amount,
      value: amount,
      status: "pending",
      txHash: null,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000
    })
  })

/** Inserts a refund of `amount`, planned as the use case plans: refused when it would exceed the payment's amount. */
const insert = (payment: Payment, amount: bigint) =>
  Effect.flatMap(refundOf(payment, amount), (refund) =>
    RefundRepository.use((repo) =>
      repo.insert(payment.id, (prior: PriorRefunds) => {
        const refunded = prior.refunds.reduce((sum, r) => sum + r.amount, 0n)
        if (refunded + amount > payment.value) return Effect.fail(new AlreadyRefunded({ message: `only ${payment.value - refunded} left` }))
        const payout = payoutOf(payment, "refund", refund)
        return Effect.succeed({ refund, payouts: [new Payout({ ...payout, leg: prior.payouts.length, value: amount })] })
      })
    ))

adapterSuite("SqlRefundRepository", (it) => {
  it.effect("the refunds and payouts of several payments read together take one statement each; each read gets its own, in order", () =>
    Effect.gen(function*() {
      const refunds = yield* RefundRepository
      const payouts = yield* PayoutRepository
      const [twice, once, none] = [yield* succeededPayment(), yield* succeededPayment(), yield* succeededPayment()]
      const first = yield* insert(twice, 1n)
      const second = yield* insert(twice, 2n)
      const only = yield* insert(once, 3n)
      const ids = [twice.id, none.id, once.id, twice.id]
      const [lists, refundReads] = yield* loggingStatements("FROM refunds", Effect.forEach(ids, (id) => refunds.listByPayment(id), { concurrency: "unbounded" }))
      assert.deepStrictEqual(lists, [[first, second], [], [only], [first, second]])
      assert.strictEqual(refundReads.length, 1)
      const [legs, payoutReads] = yield* loggingStatements("FROM payouts", Effect.forEach(ids, (id) => payouts.listByPayment(id), { concurrency: "unbounded" }))
      assert.deepStrictEqual(legs.map((list) => list.map((p) => [p.leg, p.value])), [[[0, 1n], [1, 2n]], [], [[0, 3n]], [[0, 1n], [1, 2n]]])
      assert.strictEqual(payoutReads.length, 1)
    }))

  it.effect("stores refunds of a payment and lists them oldest first; the plan sees those before", () =>
    Effect.gen(function*() {
      const repo = yield* RefundRepository
      const payment = yield* succeededPayment()
      assert.isTrue(Option.isNone(yield* repo.findByPayment(payment.id)))
      const first = yield* insert(payment, 1n)
      assert.deepStrictEqual(yield* repo.findByPayment(payment.id), Option.some(first))
      const second = yield* insert(payment, payment.value - 1n)
      assert.deepStrictEqual(yield* repo.listByPayment(payment.id), [first, second])
      assert.deepStrictEqual(yield* repo.findByPayment(payment.id), Option.some(second))
      const error = yield* Effect.flip(insert(payment, 1n))
      assert.strictEqual(error._tag, "AlreadyRefunded")
      assert.strictEqual(error.message, "only 0 left")
    }))

  it.effect("concurrent refunds of a payment are planned one after the other: never more than its amount", () =>
    Effect.gen(function*() {
      const repo = yield* RefundRepository
      for (let round = 0; round < 3; round++) {
        const payment = yield* succeededPayment()
        const part = payment.value / 3n
        const outcomes = yield* Effect.all(Array.from({ length: 5 }, () => Effect.result(insert(payment, part))), { concurrency: "unbounded" })
        assert.strictEqual(outcomes.filter((o) => o._tag === "Success").length, 3)
        for (const o of outcomes) if (o._tag === "Failure") assert.strictEqual(o.failure._tag, "AlreadyRefunded")
        const stored = yield* repo.listByPayment(payment.id)
        assert.strictEqual(stored.reduce((sum, r) => sum + r.amount, 0n), part * 3n)
      }
    }))
})
