import {
  IdGenerator,
  type Payment,
  PaymentRepository,
  Payment as PaymentClass,
  Payout,
  type PayoutKey,
  PayoutRepository,
  PayoutWork,
  Refund,
  RefundRepository,
  SignedTransfer
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlPayoutWork from "../src/SqlPayoutWork.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor } from "./support/Fixtures.ts"
import { payoutOf, succeededPayment } from "./support/PayoutFixtures.ts"

const refundOf = (payment: Payment) =>
  Effect.gen(function*() {
    return new Refund({
      id: yield* (yield* IdGenerator).make("refund"),
      paymentId: payment.id,
      partnerId: payment.partnerId,
      currency: payment.currency,
      amount: payment.value,
      value: payment.commitment!.tokenAmount,
      status: "pending",
      txHash: null,
      createdAt: 1_700_000_300_000,
      updatedAt: 1_700_000_300_000
    })
  })

const signed = (n: number) => new SignedTransfer({ txHash: `0x${n.toString(16).padStart(64, "0")}`, raw: `0x02f8${n}` })
const next = (payout: Payout, patch: Partial<Payout>) =>
  new Payout({ ...payout, ...patch, version: payout.version + 1, updatedAt: payout.updatedAt + 1 })

// The outbox events of a payment, by type.
const eventTypes = (payment: Payment) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly type: string }>`SELECT type FROM outbox_events WHERE payment_id = ${payment.id} ORDER BY type`
    return rows.map((row) => row.type)
  })

adapterSuite("SqlPayoutRepository", (it) => {
  it.effect("a succeeded payment's settlement is decided once; undecided lists only undecided succeeded payments", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const paid = yield* succeededPayment(1)
      const other = yield* succeededPayment(2)
      const mine = (list: ReadonlyArray<Payment>) => list.filter((p) => p.id === paid.id || p.id === other.id).map((p) => p.id)
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [paid.id, other.id], "oldest first")
      const settlement = payoutOf(paid, "settlement")
      assert.isTrue(yield* repo.decide(paid.id, settlement))
      assert.isFalse(yield* repo.decide(paid.id, settlement), "decided already")
      assert.isFalse(yield* repo.decide(other.id, null), "no destination")
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [])
      assert.deepStrictEqual(yield* repo.find({ paymentId: paid.id, kind: "settlement" }), Option.some(settlement))
      assert.deepStrictEqual(yield* repo.listByPayment(other.id), [])
    }))

  it.effect("a payment refunded before its decision is not settled", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const payment = yield* succeededPayment()
      const refund = yield* refundOf(payment)
      yield* (yield* RefundRepository).insert(payment.id, () => Effect.succeed({ refund, payouts: [payoutOf(payment, "refund", refund)] }))
      assert.isFalse(yield* repo.decide(payment.id, payoutOf(payment, "settlement")))
      assert.deepStrictEqual((yield* repo.listByPayment(payment.id)).map((p) => p.kind), ["refund"])
    }))

  it.effect("a refund withdraws an unsigned settlement, is refused once it is signed, and allowed after it failed", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const refunds = yield* RefundRepository
      const request = (payment: Payment) =>
        Effect.flatMap(refundOf(payment), (refund) => refunds.insert(payment.id, () => Effect.succeed({ refund, payouts: [payoutOf(payment, "refund", refund)] })))

      const unsigned = yield* succeededPayment()
      yield* repo.decide(unsigned.id, payoutOf(unsigned, "settlement"))
      yield* request(unsigned)
      assert.deepStrictEqual((yield* repo.listByPayment(unsigned.id)).map((p) => p.kind), ["refund"])

      const sent = yield* succeededPayment()
      const settlement = payoutOf(sent, "settlement")
      yield* repo.decide(sent.id, settlement)
      assert.isTrue(yield* repo.update(next(settlement, { transfer: signed(1) })))
      const refused = yield* Effect.flip(request(sent))
      assert.strictEqual(refused._tag, "InvalidState")
      assert.include(refused.message, signed(1).txHash)
      assert.isTrue(Option.isNone(yield* refunds.findByPayment(sent.id)))

      const failed = yield* succeededPayment()
      const doomed = payoutOf(failed, "settlement")
      yield* repo.decide(failed.id, doomed)
      assert.isTrue(yield* repo.update(next(doomed, { status: "failed", attempts: 5, lastError: "reverted" })))
      const refund = yield* request(failed)
      const kinds = (yield* repo.listByPayment(failed.id)).map((p) => [p.kind, p.status])
      assert.deepStrictEqual(kinds, [["refund", "pending"], ["settlement", "failed"]])
      assert.deepStrictEqual(yield* refunds.findByPayment(failed.id), Option.some(refund))
    }))

  it.effect("concurrently: a refund beats an unsigned settlement, and exactly one of a refund and a signed settlement wins", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const refunds = yield* RefundRepository
      const request = (payment: Payment) =>
        Effect.flatMap(refundOf(payment), (refund) => refunds.insert(payment.id, () => Effect.succeed({ refund, payouts: [payoutOf(payment, "refund", refund)] })))
      for (let round = 0; round < 5; round++) {
        // A settlement decision racing a refund request: the refund always stands, alone.
        const decided = yield* succeededPayment()
        const [, refunded] = yield* Effect.all([
          repo.decide(decided.id, payoutOf(decided, "settlement")),
          Effect.result(request(decided))
        ], { concurrency: "unbounded" })
        assert.strictEqual(refunded._tag, "Success")
        assert.deepStrictEqual((yield* repo.listByPayment(decided.id)).map((p) => p.kind), ["refund"])

        // A worker recording the settlement's transfer racing a refund request: one of them wins.
        const racing = yield* succeededPayment()
        const settlement = payoutOf(racing, "settlement")
        yield* repo.decide(racing.id, settlement)
        const [recorded, refund] = yield* Effect.all([
          repo.update(next(settlement, { transfer: signed(round + 10) })),
          Effect.result(request(racing))
        ], { concurrency: "unbounded" })
        assert.strictEqual(recorded, refund._tag === "Failure", "the transfer is recorded exactly when the refund is refused")
        if (refund._tag === "Failure") assert.strictEqual(refund.failure._tag, "InvalidState")
        const live = (yield* repo.listByPayment(racing.id)).filter((p) => p.status !== "failed").map((p) => p.kind)
        assert.deepStrictEqual(live, [recorded ? "settlement" : "refund"])
      }
    }))

  it.effect("update is a compare-and-set committed with the payment, its events and the refund, or not at all", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const payments = yield* PaymentRepository
      const payment = yield* succeededPayment()
      const refund = yield* refundOf(payment)
      yield* (yield* RefundRepository).insert(payment.id, () => Effect.succeed({ refund, payouts: [payoutOf(payment, "refund", refund)] }))
      const payout = payoutOf(payment, "refund", refund)
      const recorded = next(payout, { transfer: signed(2) })
      assert.isTrue(yield* repo.update(recorded, { refund: new Refund({ ...refund, txHash: signed(2).txHash }) }))
      assert.isFalse(yield* repo.update(next(payout, { transfer: signed(3) })), "stale version")

      const completed = next(recorded, { status: "completed", completedAt: 1_700_000_400_000 })
      const bumped = new PaymentClass({ ...payment, stateVersion: payment.stateVersion + 1, updatedAt: 1_700_000_400_000 })
      const event = yield* eventFor(bumped, "payment.settled")
      // The payment changed meanwhile: nothing of the change is written.
      const stale = new PaymentClass({ ...bumped, stateVersion: payment.stateVersion })
      const done = new Refund({ ...refund, status: "completed", txHash: signed(2).txHash, updatedAt: 1_700_000_400_000 })
      assert.isFalse(yield* repo.update(completed, { payment: stale, events: [event], refund: done }))
      assert.deepStrictEqual(yield* repo.find({ paymentId: payment.id, kind: "refund" }), Option.some(recorded))
      assert.deepStrictEqual(yield* eventTypes(payment), [])
      assert.strictEqual(Option.getOrThrow(yield* (yield* RefundRepository).findByPayment(payment.id)).status, "pending")

      assert.isTrue(yield* repo.update(completed, { payment: bumped, events: [event], refund: done }))
      assert.deepStrictEqual(yield* repo.find({ paymentId: payment.id, kind: "refund" }), Option.some(completed))
      assert.deepStrictEqual(yield* payments.findById(payment.id), Option.some(bumped))
      assert.deepStrictEqual(yield* eventTypes(payment), ["payment.settled"])
      assert.deepStrictEqual(yield* (yield* RefundRepository).findByPayment(payment.id), Option.some(done))
    }))

  it.effect("the payout queue: claims pending payouts once per lease; release schedules the next check", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const work = yield* PayoutWork
      const payment = yield* succeededPayment()
      const settlement = payoutOf(payment, "settlement")
      yield* repo.decide(payment.id, settlement)
      const key: PayoutKey = { paymentId: payment.id, kind: "settlement", leg: 0 }
      const mine = (keys: ReadonlyArray<PayoutKey>) => keys.filter((k) => k.paymentId === payment.id)
      assert.deepStrictEqual(mine(yield* work.claim(1000, 60_000)), [key])
      assert.deepStrictEqual(mine(yield* work.claim(1000, 60_000)), [], "leased")
      yield* work.release(key, 60_000)
      assert.deepStrictEqual(mine(yield* work.claim(1000, 60_000)), [], "not due yet")
      yield* work.release(key, 0)
      // A worker that dies holding it: the lease ends and another claims it.
      assert.deepStrictEqual(mine(yield* work.claim(1000, 1)), [key])
      yield* Effect.sleep("5 millis")
      assert.deepStrictEqual(mine(yield* work.claim(1000, 60_000)), [key])
      yield* work.release(key, 0)
      assert.isTrue(yield* repo.update(next(settlement, { status: "completed", completedAt: 1 })))
      assert.deepStrictEqual(mine(yield* work.claim(1000, 60_000)), [], "only pending payouts")
    }).pipe(Effect.provide(SqlPayoutWork.layer)))
})
