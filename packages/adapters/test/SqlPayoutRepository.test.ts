import {
  IdGenerator,
  type Payment,
  PaymentRepository,
  Payment as PaymentClass,
  Payout,
  type PayoutKey,
  PayoutRepository,
  PayoutWork,
  planSettlement,
  type PriorRefunds,
  Refund,
  RefundRepository,
  SignedTransfer
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlPayoutWork from "../src/SqlPayoutWork.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor } from "./support/Fixtures.ts"
import { payoutOf, succeededPayment, usdc } from "./support/PayoutFixtures.ts"

const refundOf = (payment: Payment, value = payment.commitment!.tokenAmount) =>
  Effect.gen(function*() {
    return new Refund({
      id: yield* (yield* IdGenerator).make("refund"),
      paymentId: payment.id,
      partnerId: payment.partnerId,
      currency: payment.currency,
      amount: value === payment.commitment!.tokenAmount ? payment.value : 1n,
      value,
      status: "pending",
      txHash: null,
      createdAt: 1_700_000_300_000,
      updatedAt: 1_700_000_300_000
    })
  })

// A refund of `value` (all of it by default) to the payer, as the refund's payout `leg`.
const refund = (payment: Payment, value?: bigint, leg = 0) =>
  Effect.gen(function*() {
    const planned = yield* refundOf(payment, value)
    const payout = new Payout({ ...payoutOf(payment, "refund", planned), value: planned.value, leg })
    return yield* (yield* RefundRepository).insert(payment.id, () => Effect.succeed({ refund: planned, payouts: [payout] }))
  })

// The settlement of what the payment's refunds left, to the fixtures' destination.
const settleRest = (payment: Payment) => (_destination: unknown, prior: PriorRefunds) =>
  planSettlement({ paymentId: payment.id, asset: usdc, recipient: payoutOf(payment, "settlement").recipient, tokenAmount: payment.commitment!.tokenAmount }, prior, 1_700_000_200_000)

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
  it.effect("a payment whose destination is not usable yet is not listed undecided (it never fills the batch), until it is", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const sql = yield* SqlClient.SqlClient
      const waiting = yield* succeededPayment(1)
      const other = yield* succeededPayment(2)
      const usableFrom = (yield* Clock.currentTimeMillis) + 600_000
      // Stored in another spelling than the commitment's: asset ids compare without case.
      yield* sql`INSERT INTO crypto_settlements (id, merchant_id, asset, destination, created_at, updated_at, usable_from)
        VALUES (${`stl_${waiting.id.slice(4)}`}, ${waiting.merchantId}, ${usdc.toLowerCase()}, ${payoutOf(waiting, "settlement").recipient},
          0, 0, ${usableFrom}::bigint)`
      const mine = (list: ReadonlyArray<Payment>) => list.filter((p) => p.id === waiting.id || p.id === other.id).map((p) => p.id)
      const [first] = yield* repo.undecided(1)
      assert.strictEqual(first?.id, other.id, "the waiting payment, older, does not take the batch of one")
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [other.id])
      // Its time has come.
      yield* sql`UPDATE crypto_settlements SET usable_from = ${(yield* Clock.currentTimeMillis)}::bigint WHERE merchant_id = ${waiting.merchantId}`
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [waiting.id, other.id])
    }))

  it.effect("a succeeded payment's settlement is decided once; undecided lists only undecided succeeded payments", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const paid = yield* succeededPayment(1)
      const other = yield* succeededPayment(2)
      const mine = (list: ReadonlyArray<Payment>) => list.filter((p) => p.id === paid.id || p.id === other.id).map((p) => p.id)
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [paid.id, other.id], "oldest first")
      const settlement = payoutOf(paid, "settlement")
      assert.isTrue(yield* repo.decide(paid.id, () => settlement))
      assert.isFalse(yield* repo.decide(paid.id, () => settlement), "decided already")
      assert.isFalse(yield* repo.decide(other.id, () => null), "no destination")
      assert.deepStrictEqual(mine(yield* repo.undecided(1000)), [])
      assert.deepStrictEqual(yield* repo.find({ paymentId: paid.id, kind: "settlement" }), Option.some(settlement))
      assert.deepStrictEqual(yield* repo.listByPayment(other.id), [])
    }))

  it.effect("a payment refunded in full before its decision is not settled; refunded in part, the rest is settled on the next leg", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const whole = yield* succeededPayment()
      yield* refund(whole)
      assert.isFalse(yield* repo.decide(whole.id, settleRest(whole)))
      assert.deepStrictEqual((yield* repo.listByPayment(whole.id)).map((p) => p.kind), ["refund"])

      const part = yield* succeededPayment()
      yield* refund(part, 4_000_000n)
      assert.isTrue(yield* repo.decide(part.id, settleRest(part)))
      const settled = (yield* repo.listByPayment(part.id)).map((p) => [p.kind, p.leg, p.value])
      assert.deepStrictEqual(settled, [["refund", 0, 4_000_000n], ["settlement", 1, 15_990_000n]])
    }))

  it.effect("a refund withdraws an unsigned or failed settlement and has the rest decided anew; it is refused once the settlement is signed", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const refunds = yield* RefundRepository
      const undecided = (payment: Payment) => Effect.map(repo.undecided(1000), (all) => all.some((p) => p.id === payment.id))

      const unsigned = yield* succeededPayment()
      assert.isTrue(yield* repo.decide(unsigned.id, settleRest(unsigned)))
      yield* refund(unsigned, 5_000_000n)
      assert.deepStrictEqual((yield* repo.listByPayment(unsigned.id)).map((p) => p.kind), ["refund"])
      assert.isTrue(yield* undecided(unsigned), "decided anew")
      assert.isTrue(yield* repo.decide(unsigned.id, settleRest(unsigned)))
      const rest = (yield* repo.listByPayment(unsigned.id)).map((p) => [p.kind, p.leg, p.value])
      assert.deepStrictEqual(rest, [["refund", 0, 5_000_000n], ["settlement", 1, 14_990_000n]])
      // Refunding the rest withdraws that settlement too, and nothing is left to settle.
      yield* refund(unsigned, 14_990_000n, 1)
      assert.isFalse(yield* repo.decide(unsigned.id, settleRest(unsigned)))
      assert.deepStrictEqual((yield* repo.listByPayment(unsigned.id)).map((p) => p.kind), ["refund", "refund"])

      const sent = yield* succeededPayment()
      const settlement = payoutOf(sent, "settlement")
      yield* repo.decide(sent.id, () => settlement)
      assert.isTrue(yield* repo.update(next(settlement, { transfer: signed(1) })))
      const refused = yield* Effect.flip(refund(sent))
      assert.strictEqual(refused._tag, "InvalidState")
      assert.include(refused.message, signed(1).txHash)
      assert.isTrue(Option.isNone(yield* refunds.findByPayment(sent.id)))
      assert.isFalse(yield* undecided(sent))

      const failed = yield* succeededPayment()
      const doomed = payoutOf(failed, "settlement")
      yield* repo.decide(failed.id, () => doomed)
      assert.isTrue(yield* repo.update(next(doomed, { status: "failed", attempts: 5, lastError: "reverted" })))
      const done = yield* refund(failed, 9_990_000n)
      assert.deepStrictEqual((yield* repo.listByPayment(failed.id)).map((p) => [p.kind, p.status]), [["refund", "pending"]])
      assert.deepStrictEqual(yield* refunds.findByPayment(failed.id), Option.some(done))
      assert.isTrue(yield* repo.decide(failed.id, settleRest(failed)))
      assert.deepStrictEqual((yield* repo.listByPayment(failed.id)).map((p) => [p.kind, p.value]), [["refund", 9_990_000n], ["settlement", 10_000_000n]])
    }))

  it.effect("concurrently: refunds and settlement decisions never send more than was paid, and a signed settlement refuses refunds", () =>
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const live = (payment: Payment) => Effect.map(repo.listByPayment(payment.id), (all) => all.filter((p) => p.status !== "failed"))
      for (let round = 0; round < 5; round++) {
        // A settlement decision racing a partial refund, then decided again if the refund withdrew it:
        // the refund stands and the settlement sends exactly the rest.
        const decided = yield* succeededPayment()
        const [, refunded] = yield* Effect.all([
          repo.decide(decided.id, settleRest(decided)),
          Effect.result(refund(decided, 3_000_000n))
        ], { concurrency: "unbounded" })
        assert.strictEqual(refunded._tag, "Success")
        yield* repo.decide(decided.id, settleRest(decided))
        const payouts = (yield* live(decided)).map((p) => [p.kind, p.value])
        assert.deepStrictEqual(payouts, [["refund", 3_000_000n], ["settlement", 16_990_000n]])

        // A worker recording the settlement's transfer racing a refund request: one of them wins.
        const racing = yield* succeededPayment()
        const settlement = payoutOf(racing, "settlement")
        yield* repo.decide(racing.id, () => settlement)
        const [recorded, refunding] = yield* Effect.all([
          repo.update(next(settlement, { transfer: signed(round + 10) })),
          Effect.result(refund(racing))
        ], { concurrency: "unbounded" })
        assert.strictEqual(recorded, refunding._tag === "Failure", "the transfer is recorded exactly when the refund is refused")
        if (refunding._tag === "Failure") assert.strictEqual(refunding.failure._tag, "InvalidState")
        assert.deepStrictEqual((yield* live(racing)).map((p) => p.kind), [recorded ? "settlement" : "refund"])
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
      yield* repo.decide(payment.id, () => settlement)
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
