import { SqlQuoteStore } from "@paygate/adapters"
import { type OptionClaims, PaymentRepository, QuoteStore } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const account = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const other = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const claimsFor = (paymentId: string, overrides: Partial<OptionClaims> = {}): OptionClaims => ({
  paymentId,
  account,
  asset,
  value: "12500000",
  expiresAt: null,
  kind: "pull",
  nonce: `0x${"11".repeat(32)}`,
  quotedAt: 1_700_000_000,
  ...overrides
})

const storedPayment = Effect.gen(function*() {
  const merchant = yield* newMerchant(yield* newPartner())
  const payment = yield* newPayment(merchant)
  yield* (yield* PaymentRepository).insert(payment, []).pipe(Effect.orDie)
  return payment
})

adapterSuite("SqlQuoteStore", (it) => {
  const withStore = <A, E, R>(effect: Effect.Effect<A, E, R | QuoteStore>) =>
    Effect.provide(effect, SqlQuoteStore.layer)

  it.effect("answers the latest quote per (payment, account, asset), claims round-tripped", () =>
    withStore(Effect.gen(function*() {
      const store = yield* QuoteStore
      const payment = yield* storedPayment
      assert.isTrue(Option.isNone(yield* store.latest(payment.id, account, asset)))
      const first = { optionId: `opt-${payment.id}-1`, claims: claimsFor(payment.id) }
      yield* store.save(first)
      assert.deepStrictEqual(yield* store.latest(payment.id, account, asset), Option.some(first))
      // Saved within the same millisecond: still the newer one wins.
      const second = {
        optionId: `opt-${payment.id}-2`,
        claims: claimsFor(payment.id, { value: "1", expiresAt: 1_700_000_300, kind: "push", nonce: `0x${"22".repeat(16)}` })
      }
      yield* store.save(second)
      assert.deepStrictEqual(yield* store.latest(payment.id, account, asset), Option.some(second))
      assert.deepStrictEqual(yield* store.history(payment.id, account, asset), [first, second])
      assert.deepStrictEqual(yield* store.history(payment.id, other, asset), [])
      // Other keys are unaffected.
      assert.isTrue(Option.isNone(yield* store.latest(payment.id, other, asset)))
      assert.isTrue(Option.isNone(yield* store.latest(payment.id, account, `${asset.slice(0, -1)}9`)))
      // Saving the same option id again changes nothing.
      yield* store.save(first)
      assert.deepStrictEqual(yield* store.latest(payment.id, account, asset), Option.some(second))
    })))

  it.effect("orders by time of saving", () =>
    withStore(Effect.gen(function*() {
      const store = yield* QuoteStore
      const payment = yield* storedPayment
      const a = { optionId: `opt-${payment.id}-a`, claims: claimsFor(payment.id, { value: "1" }) }
      const b = { optionId: `opt-${payment.id}-b`, claims: claimsFor(payment.id, { value: "2" }) }
      yield* store.save(a)
      yield* TestClock.adjust("1 second")
      yield* store.save(b)
      assert.deepStrictEqual(yield* store.latest(payment.id, account, asset), Option.some(b))
    }).pipe(Effect.provide(TestClock.layer()))))

  it.effect("a quote must belong to a stored payment", () =>
    withStore(Effect.gen(function*() {
      const store = yield* QuoteStore
      const exit = yield* Effect.exit(store.save({ optionId: "opt-orphan", claims: claimsFor("pay_doesNotExist") }))
      assert.isTrue(exit._tag === "Failure")
    })))

  it.effect("prunes a payment's replaced quotes once expired, keeping the latest, pegged and deposit ones; answers what it holds", () =>
    withStore(Effect.gen(function*() {
      const store = yield* QuoteStore
      const payment = yield* storedPayment
      const otherPayment = yield* storedPayment
      let n = 0
      const save = (paymentId: string, claims: Partial<OptionClaims>) =>
        Effect.gen(function*() {
          const quote = { optionId: `opt-${paymentId}-${++n}`, claims: claimsFor(paymentId, { nonce: `0x${n.toString(16).padStart(64, "0")}`, ...claims }) }
          yield* store.save(quote)
          yield* TestClock.adjust("1 second")
          return quote
        })
      const replacedExpired = yield* save(payment.id, { expiresAt: 1_000 })
      const replacedLive = yield* save(payment.id, { expiresAt: 5_000 })
      const latestExpired = yield* save(payment.id, { expiresAt: 1_000 })
      const pegged = yield* save(payment.id, { account: other })
      const peggedLatest = yield* save(payment.id, { account: other })
      const deposit = yield* save(payment.id, { account: other, asset: `${asset.slice(0, -1)}9`, kind: "deposit", expiresAt: 1_000 })
      yield* save(payment.id, { account: other, asset: `${asset.slice(0, -1)}9`, kind: "deposit", expiresAt: 5_000 })
      const elsewhere = yield* save(otherPayment.id, { expiresAt: 1_000 })
      yield* save(otherPayment.id, { expiresAt: 1_000 })

      assert.strictEqual(yield* store.prune(payment.id, 2_000), 6)
      const history = yield* store.history(payment.id, account, asset)
      assert.deepStrictEqual(history.map((q) => q.optionId), [replacedLive.optionId, latestExpired.optionId])
      assert.isFalse(history.some((q) => q.optionId === replacedExpired.optionId))
      assert.strictEqual((yield* store.history(payment.id, other, asset))[0]?.optionId, pegged.optionId)
      assert.strictEqual((yield* store.history(payment.id, other, `${asset.slice(0, -1)}9`))[0]?.optionId, deposit.optionId)
      assert.strictEqual((yield* store.history(otherPayment.id, account, asset))[0]?.optionId, elsewhere.optionId, "another payment's quotes are left")
      // Once the replaced one has expired too, it goes.
      assert.strictEqual(yield* store.prune(payment.id, 6_000), 5)
      // The newest of the asset under any account.
      assert.deepStrictEqual(yield* store.newest(payment.id, asset), Option.some(peggedLatest))
    }).pipe(Effect.provide(TestClock.layer()))))
})
