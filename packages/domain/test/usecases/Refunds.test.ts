import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type DomainError, errorCode } from "../../src/errors/DomainErrors.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId } from "../../src/ids/Ids.ts"
import { Commitment, Payment } from "../../src/payment/Payment.ts"
import { RefundRepository } from "../../src/ports/RefundRepository.ts"
import { latestRefundOf, makeMemoryRefunds, type MemoryRefunds } from "../../src/testing/MemoryPayoutStore.ts"
import { layerMemoryRefunds } from "../../src/testing/MemoryRefundRepository.ts"
import { layerMemory, makeMemoryStore, type MemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { type Access, systemAccess } from "../../src/usecases/Access.ts"
import { type CreatePaymentInput, Payments } from "../../src/usecases/Payments.ts"
import { Refunds } from "../../src/usecases/Refunds.ts"

const partnerId = "ptn_one" as PartnerId
const merchantId = "mer_one" as MerchantId
const access: Access = { partnerId, mode: "sandbox" }
const buyer = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const start = 1_800_000_000_000

const base: CreatePaymentInput = {
  partnerId,
  merchantId,
  mode: "sandbox",
  amount: { unit: "iso4217/USD", value: "1250" },
  referenceId: "order-1"
}

/** Counts refund inserts and yields before each, so concurrent requests both reach the store. */
interface Probe {
  inserts: number
}
const racyRefunds = (store: MemoryRefunds, probe: Probe) =>
  Layer.effect(
    RefundRepository,
    Effect.gen(function*() {
      const inner = yield* RefundRepository
      return RefundRepository.of({
        insert: (paymentId, plan) => Effect.suspend(() => {
          probe.inserts++
          return Effect.andThen(Effect.yieldNow, inner.insert(paymentId, plan))
        }),
        listByPayment: inner.listByPayment,
        findByPayment: inner.findByPayment
      })
    })
  ).pipe(Layer.provide(layerMemoryRefunds(store)))

// Fresh stores per test: payments made by the Payments use cases (the confirm step is written
// directly, so these tests do not depend on where the confirm use case lives), refunds in memory.
const provide = <A, E>(
  body: (stores: { readonly payments: MemoryStore; readonly refunds: MemoryRefunds }) => Effect.Effect<A, E, Payments | Refunds>,
  options: { readonly racy?: Probe } = {}
) => {
  const payments = makeMemoryStore()
  const refunds = makeMemoryRefunds()
  const refundLayer = options.racy === undefined ? layerMemoryRefunds(refunds) : racyRefunds(refunds, options.racy)
  return Effect.provide(
    Effect.andThen(TestClock.setTime(start), body({ payments, refunds })),
    Layer.mergeAll(Payments.layer, Refunds.layer).pipe(
      Layer.provide(IdGenerator.layer),
      Layer.provide([layerMemory(payments), refundLayer, oneMerchant(partnerId, merchantId), seededSecureRandom(9)])
    )
  )
}

const code = <A, E extends DomainError, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed<string>(errorCode(e))))

const request = (id: string, as: Access = access, amount?: bigint | string) =>
  Refunds.use((r) => r.request(as, id, amount === undefined ? undefined : { unit: "iso4217/USD", value: `${amount}` }))

const created = (input: Partial<CreatePaymentInput> = {}) =>
  Payments.use((p) => p.create({ ...base, ...input })).pipe(Effect.map((p) => p.id))

// The accepted confirm, written as the confirm use case writes it: status processing with a commitment.
const processing = (store: MemoryStore, input: Partial<CreatePaymentInput> = {}) =>
  Effect.gen(function*() {
    const id = yield* created(input)
    const payment = store.payments.get(id)!
    const commitment = new Commitment({
      kind: "pull",
      account: buyer,
      asset,
      tokenAmount: 12_500_000n,
      fingerprint: "fp",
      txHash: null,
      authorization: null,
      reference: null,
      walletName: "Test wallet",
      confirmedAt: Math.floor(payment.createdAt / 1000)
    })
    store.payments.set(id, new Payment({ ...payment, status: "processing", commitment, stateVersion: payment.stateVersion + 1 }))
    return id
  })

const settled = (store: MemoryStore, outcome: "succeeded" | "failed", input: Partial<CreatePaymentInput> = {}) =>
  Effect.gen(function*() {
    const id = yield* processing(store, input)
    yield* Payments.use((p) => p.settleOutcome(id, outcome, `0xfeed${id}`))
    return id
  })

describe("Refunds.request", () => {
  it.effect("records a pending refund of a succeeded payment", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        yield* TestClock.adjust("1 minute")
        const refund = yield* request(id)
        assert.match(refund.id, /^ref_[0-9A-Z]{26}$/)
        assert.strictEqual(refund.paymentId, id)
        assert.strictEqual(refund.partnerId, partnerId)
        assert.strictEqual(refund.status, "pending")
        assert.isNull(refund.txHash)
        assert.strictEqual(refund.createdAt, start + 60_000)
        assert.strictEqual(refund.updatedAt, start + 60_000)
        assert.deepStrictEqual(latestRefundOf(store, id as PaymentId), refund)
      })))

  it.effect("refuses a second refund with already_refunded", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const first = yield* request(id)
        const error = yield* Effect.flip(request(id))
        assert.strictEqual(error._tag, "AlreadyRefunded")
        assert.include(error.message, id)
        assert.deepStrictEqual(latestRefundOf(store, id as PaymentId), first)
      })))

  it.effect("refuses payments that have not succeeded with payment_not_succeeded", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const busy = yield* processing(payments)
        const error = yield* Effect.flip(request(busy))
        assert.strictEqual(error._tag, "PaymentNotSucceeded")
        assert.strictEqual(error.message, `Payment ${busy} is processing; only succeeded payments can be refunded.`)
        assert.strictEqual(yield* code(request(yield* settled(payments, "failed"))), "payment_not_succeeded")
        const waiting = yield* created()
        assert.strictEqual(yield* code(request(waiting)), "payment_not_succeeded")
        const cancelled = yield* created()
        yield* Payments.use((p) => p.cancel(access, cancelled, "cancelled_by_merchant"))
        assert.strictEqual(yield* code(request(cancelled)), "payment_not_succeeded")
        yield* TestClock.adjust("1 hour")
        const expired = yield* Effect.flip(request(waiting))
        assert.strictEqual(expired.message, `Payment ${waiting} is expired; only succeeded payments can be refunded.`)
        assert.strictEqual(store.refunds.size, 0)
      })))

  it.effect("reports unknown, malformed and foreign payments as payment_not_found", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const error = yield* Effect.flip(request("pay_unknown"))
        assert.strictEqual(error._tag, "PaymentNotFound")
        assert.strictEqual(error.message, "No payment pay_unknown.")
        for (const bad of ["", "pay_", "pay_bad-id", "mer_one", id.toLowerCase().replace("pay_", "PAY_")]) {
          assert.strictEqual(yield* code(request(bad)), "payment_not_found", bad)
        }
        assert.strictEqual(yield* code(request(id, { partnerId: "ptn_two" as PartnerId, mode: "sandbox" })), "payment_not_found")
        assert.strictEqual(yield* code(request(id, { partnerId, mode: "live" })), "payment_not_found")
        assert.strictEqual(yield* code(request(id, { ...access, merchantId: "mer_two" as MerchantId })), "payment_not_found")
        assert.strictEqual(store.refunds.size, 0)
        assert.strictEqual(yield* code(request(id, { ...access, merchantId })), "ok")
      })))

  it.effect("lets the service's own jobs refund any payment", () =>
    provide(({ payments }) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* code(request(yield* settled(payments, "succeeded"), systemAccess)), "ok")
      })))

  it.effect("of two concurrent requests, exactly one wins", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const exits = yield* Effect.all([Effect.exit(request(id)), Effect.exit(request(id))], { concurrency: "unbounded" })
        const wins = exits.filter(Exit.isSuccess)
        const losses = exits.filter(Exit.isFailure).map((e) => Exit.findErrorOption(e))
        assert.strictEqual(wins.length, 1)
        assert.strictEqual(losses.length, 1)
        assert.strictEqual(losses[0]!._tag === "Some" ? losses[0]!.value._tag : "none", "AlreadyRefunded")
        assert.deepStrictEqual(latestRefundOf(store, id as PaymentId), wins[0]!.value)
      })))

  it.effect("the store fails the loser when both pass the pre-check", () => {
    const probe: Probe = { inserts: 0 }
    return provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const codes = yield* Effect.all([code(request(id)), code(request(id))], { concurrency: "unbounded" })
        assert.deepStrictEqual([...codes].sort(), ["already_refunded", "ok"])
        assert.strictEqual(probe.inserts, 2)
        assert.strictEqual(store.refunds.size, 1)
      }), { racy: probe })
  })

  it.effect("refunds in parts until the paid amount is used up, then refuses with already_refunded", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const first = yield* request(id, access, 500n)
        assert.deepStrictEqual([first.amount, first.value], [500n, 5_000_000n])
        const second = yield* request(id, access, 333n)
        assert.deepStrictEqual([second.amount, second.value], [333n, 3_330_000n])
        const beyond = yield* Effect.flip(request(id, access, 418n))
        assert.strictEqual(beyond._tag, "AlreadyRefunded")
        assert.include(beyond.message, "417")
        // Without an amount: all that is left, exactly the tokens not yet sent.
        const rest = yield* request(id)
        assert.deepStrictEqual([rest.amount, rest.value], [417n, 12_500_000n - 5_000_000n - 3_330_000n])
        const done = yield* Effect.flip(request(id, access, 1n))
        assert.strictEqual(done._tag, "AlreadyRefunded")
        assert.include(done.message, "in full")
        const payouts = [...store.payouts.payouts.values()].filter((p) => p.paymentId === id)
        assert.deepStrictEqual(payouts.map((p) => [p.leg, p.refundId, p.value]), [
          [0, first.id, 5_000_000n],
          [1, second.id, 3_330_000n],
          [2, rest.id, 4_170_000n]
        ])
      })))

  it.effect("refuses a malformed amount, or one in another currency, with params_validation", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        for (const bad of ["0", "-5", "5.00", "1e3", " 5", "0005", "9".repeat(19)]) {
          assert.strictEqual(yield* code(request(id, access, bad)), "params_validation", bad)
        }
        const other = yield* Effect.flip(Refunds.use((r) => r.request(access, id, { unit: "iso4217/EUR", value: "5" })))
        assert.strictEqual(other.message, "amount.unit must be the payment's currency, iso4217/USD.")
        assert.strictEqual(store.refunds.size, 0)
      })))

  it.effect("concurrent partial refunds never exceed the paid amount", () =>
    provide(({ payments, refunds: store }) =>
      Effect.gen(function*() {
        const id = yield* settled(payments, "succeeded")
        const codes = yield* Effect.all(Array.from({ length: 6 }, () => code(request(id, access, 400n))), { concurrency: "unbounded" })
        assert.deepStrictEqual([...codes].sort(), ["already_refunded", "already_refunded", "already_refunded", "ok", "ok", "ok"])
        const stored = [...store.refunds.values()]
        assert.strictEqual(stored.reduce((sum, r) => sum + r.amount, 0n), 1_200n)
        assert.strictEqual(stored.reduce((sum, r) => sum + r.value, 0n), 12_000_000n)
      }), { racy: { inserts: 0 } }))
})
