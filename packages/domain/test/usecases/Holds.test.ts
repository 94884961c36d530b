import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { EscrowTerms } from "../../src/hold/Hold.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId } from "../../src/ids/Ids.ts"
import { Commitment, Payment, SignedAuthorization } from "../../src/payment/Payment.ts"
import { layerMemoryEscrow, makeMemoryEscrow, type MemoryEscrow } from "../../src/testing/MemoryEscrowChain.ts"
import { layerMemory, makeMemoryStore, type MemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { HoldExecutions } from "../../src/usecases/HoldExecutions.ts"
import { Holds } from "../../src/usecases/Holds.ts"
import { Payments } from "../../src/usecases/Payments.ts"

const partnerId = "ptn_hold" as PartnerId
const merchantId = "mer_hold" as MerchantId
const start = 1_800_000_000_000
const nowSeconds = start / 1000
const account = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const access = { partnerId, mode: "sandbox" as const }

interface World {
  readonly store: MemoryStore
  readonly escrow: MemoryEscrow
}

// `testClock`: false for a run outside the test services (the chain's clock then starts before any deadline).
const provide = <A, E>(body: (world: World) => Effect.Effect<A, E, Payments | Holds | HoldExecutions>, testClock = true) => {
  const world = { store: makeMemoryStore(), escrow: makeMemoryEscrow(testClock ? nowSeconds : 0) }
  return Effect.provide(
    testClock ? Effect.andThen(TestClock.setTime(start), body(world)) : body(world),
    Layer.mergeAll(Holds.layer, HoldExecutions.layer).pipe(
      Layer.provideMerge(Payments.layer),
      Layer.provide(IdGenerator.layer),
      Layer.provide([layerMemory(world.store), layerMemoryEscrow(world.escrow), oneMerchant(partnerId, merchantId), seededSecureRandom(5)])
    )
  )
}

// A held payment of `value` US cents whose buyer authorized `tokens` into the escrow (the executor's work done).
const authorized = (world: World, options: { value?: string; tokens?: bigint; windowSeconds?: number; voidAtDeadline?: boolean } = {}) =>
  Effect.gen(function*() {
    const payments = yield* Payments
    const created = yield* payments.create({
      partnerId,
      merchantId,
      mode: "sandbox",
      amount: { unit: "iso4217/USD", value: options.value ?? "1000" },
      referenceId: "order-1",
      capture: { method: "manual", windowSeconds: options.windowSeconds ?? 3_600, voidAtDeadline: options.voidAtDeadline }
    })
    const salt = `0x${created.id.slice(4).toLowerCase().padStart(64, "0")}`
    const tokens = options.tokens ?? 10_000_000n
    const commitment = new Commitment({
      kind: "pull",
      account,
      asset,
      tokenAmount: tokens,
      fingerprint: "fp",
      txHash: `0x${"ab".repeat(32)}`,
      authorization: new SignedAuthorization({
        to: "0x00000000000000000000000000000000000e5c20",
        validBefore: created.expiresAt,
        nonce: salt,
        signature: "0x01",
        escrow: new EscrowTerms({ receiver: "0x0000000000000000000000000000000000000abc", captureBefore: created.hold!.captureBefore, refundBefore: created.hold!.refundBefore })
      }),
      reference: null,
      walletName: "Test wallet",
      confirmedAt: nowSeconds
    })
    world.store.payments.set(created.id, new Payment({ ...created, status: "processing", commitment, stateVersion: created.stateVersion + 1 }))
    const payment = yield* payments.settleOutcome(created.id, "succeeded", commitment.txHash)
    world.escrow.authorize(salt, tokens)
    return payment
  })

const advance = (id: PaymentId) => HoldExecutions.use((h) => h.advance(id))
const current = (world: World, id: PaymentId) => world.store.payments.get(id)!
const eventTypes = (world: World, id: PaymentId) => world.store.events.filter((e) => e.paymentId === id).map((e) => e.type)
// Advances until the payment waits for something the test must do (mine, move the clock) or is final.
const settle = (world: World, id: PaymentId) =>
  Effect.gen(function*() {
    for (let round = 0; round < 20; round++) {
      const step = yield* advance(id)
      if (step !== "pending") return step
      world.escrow.mine()
    }
    return yield* Effect.die(new Error("no progress"))
  })

describe("Holds and HoldExecutions", () => {
  it.effect("a held payment is authorized, not succeeded, once the escrow holds the buyer's funds", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payment = yield* authorized(world)
        assert.strictEqual(payment.status, "authorized")
        assert.strictEqual(payment.hold!.authorized, 10_000_000n)
        assert.strictEqual(payment.hold!.captureBefore, payment.expiresAt + 3_600)
        assert.deepStrictEqual(eventTypes(world, payment.id), ["payment.created", "payment.authorized"])
        assert.strictEqual(yield* advance(payment.id), "waiting")
      })))

  it.effect("captures in parts add up to the authorization exactly; the last one makes it succeeded", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payment = yield* authorized(world, { value: "1000", tokens: 9_999_999n })
        const holds = yield* Holds
        yield* holds.capture(access, payment.id, { unit: "iso4217/USD", value: "333" })
        yield* holds.capture(access, payment.id, { unit: "iso4217/USD", value: "333" })
        assert.strictEqual(yield* settle(world, payment.id), "waiting")
        assert.strictEqual(current(world, payment.id).status, "authorized")
        assert.strictEqual(current(world, payment.id).hold!.capturedValue, 666n)
        const rest = yield* holds.capture(access, payment.id, undefined)
        assert.strictEqual(rest.hold!.operations[2]!.value, 334n)
        assert.strictEqual(yield* settle(world, payment.id), "final")
        const done = current(world, payment.id)
        assert.strictEqual(done.status, "succeeded")
        assert.strictEqual(done.hold!.captured, 9_999_999n)
        assert.deepStrictEqual(done.hold!.operations.map((op) => op.tokenAmount), [3_329_999n, 3_330_000n, 3_340_000n])
        assert.deepStrictEqual(world.escrow.payments.get(done.commitment!.authorization!.nonce), { held: 0n, captured: 9_999_999n })
        assert.deepStrictEqual(eventTypes(world, payment.id).slice(2), ["payment.captured", "payment.captured", "payment.succeeded"])
      })))

  it.effect("a void gives back what is held: voided before any capture, succeeded after one", () =>
    provide((world) =>
      Effect.gen(function*() {
        const holds = yield* Holds
        const untouched = yield* authorized(world)
        yield* holds.void(access, untouched.id)
        assert.strictEqual(yield* settle(world, untouched.id), "final")
        assert.strictEqual(current(world, untouched.id).status, "voided")
        assert.strictEqual(current(world, untouched.id).hold!.released, "voided")
        assert.deepStrictEqual(eventTypes(world, untouched.id).slice(2), ["payment.voided"])

        const part = yield* authorized(world)
        yield* holds.capture(access, part.id, { unit: "iso4217/USD", value: "400" })
        yield* holds.void(access, part.id)
        assert.strictEqual(yield* settle(world, part.id), "final")
        assert.strictEqual(current(world, part.id).status, "succeeded")
        assert.strictEqual(current(world, part.id).hold!.capturedValue, 400n)
        assert.strictEqual(current(world, part.id).hold!.released, "voided")
        assert.deepStrictEqual(eventTypes(world, part.id).slice(2), ["payment.captured", "payment.succeeded"])
      })))

  it.effect("a worker that sent a capture and died before recording it never captures twice", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payment = yield* authorized(world)
        yield* (yield* Holds).capture(access, payment.id, { unit: "iso4217/USD", value: "500" })
        const before = current(world, payment.id)
        assert.strictEqual(yield* advance(payment.id), "pending")
        // The record of the send is lost (the worker was killed between sending and recording) …
        world.store.payments.set(payment.id, before)
        // … and another worker takes it over while the first transaction is still unmined: it sends again.
        assert.strictEqual(yield* advance(payment.id), "pending")
        assert.strictEqual(world.escrow.sent.length, 2)
        world.escrow.mine()
        assert.deepStrictEqual(world.escrow.sent.map((tx) => tx.outcome), ["succeeded", "failed"], "the second names a stale captured total")
        assert.strictEqual(yield* settle(world, payment.id), "waiting")
        const after = current(world, payment.id)
        assert.strictEqual(after.hold!.captured, 5_000_000n)
        assert.strictEqual(after.hold!.operations[0]!.status, "succeeded")
        assert.deepStrictEqual(eventTypes(world, payment.id).slice(2), ["payment.captured"])
      })))

  it.effect("a capture racing the buyer's reclaim: the chain decides, and the record follows", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payment = yield* authorized(world, { voidAtDeadline: false })
        yield* (yield* Holds).capture(access, payment.id, undefined)
        assert.strictEqual(yield* advance(payment.id), "pending")
        // The deadline passes with the capture unmined; the buyer's reclaim is mined first.
        world.escrow.chainTime = payment.hold!.captureBefore
        assert.isTrue(world.escrow.reclaim(escrowed(current(world, payment.id))))
        world.escrow.mine()
        assert.strictEqual(yield* settle(world, payment.id), "final")
        const after = current(world, payment.id)
        assert.strictEqual(after.status, "reclaimed")
        assert.strictEqual(after.hold!.operations[0]!.status, "failed")
        assert.deepStrictEqual(eventTypes(world, payment.id).slice(2), ["payment.reclaimed"])
      })))

  it.effect("at the capture deadline the worker voids what is held, or waits for the buyer's reclaim", () =>
    provide((world) =>
      Effect.gen(function*() {
        const voids = yield* authorized(world)
        const waits = yield* authorized(world, { voidAtDeadline: false })
        world.escrow.chainTime = voids.hold!.captureBefore
        assert.strictEqual(yield* settle(world, voids.id), "final")
        assert.strictEqual(current(world, voids.id).status, "voided")
        assert.strictEqual(current(world, voids.id).hold!.operations[0]!.requestedBy, "deadline")
        assert.strictEqual(yield* settle(world, waits.id), "dormant")
        world.escrow.reclaim(escrowed(current(world, waits.id)))
        assert.strictEqual(yield* settle(world, waits.id), "final")
        assert.strictEqual(current(world, waits.id).status, "reclaimed")
      })))

  it.effect("a capture the chain would refuse past the deadline fails, and is reported", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payment = yield* authorized(world, { voidAtDeadline: false })
        yield* (yield* Holds).capture(access, payment.id, { unit: "iso4217/USD", value: "100" })
        world.escrow.chainTime = payment.hold!.captureBefore + 1
        assert.strictEqual(yield* settle(world, payment.id), "dormant")
        assert.strictEqual(current(world, payment.id).hold!.operations[0]!.status, "failed")
        assert.strictEqual(world.escrow.sent.length, 0)
        assert.deepStrictEqual(eventTypes(world, payment.id).slice(2), ["payment.capture_failed"])
      })))

  it.effect("refusals: not held, not authorized yet, too much, another currency, being voided, nothing left to void, past the deadline", () =>
    provide((world) =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const holds = yield* Holds
        const code = <A, E>(effect: Effect.Effect<A, E>) =>
          Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) ? String((exit.cause as unknown as { reasons: Array<{ error?: { _tag: string } }> }).reasons[0]?.error?._tag) : "ok"))
        const plain = yield* payments.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "100" }, referenceId: "plain" })
        assert.strictEqual(yield* code(holds.capture(access, plain.id, undefined)), "InvalidState")
        const waiting = yield* payments.create({
          partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "100" }, referenceId: "w", capture: { method: "manual" }
        })
        assert.strictEqual(yield* code(holds.capture(access, waiting.id, undefined)), "InvalidState")
        const held = yield* authorized(world)
        assert.strictEqual(yield* code(holds.capture(access, held.id, { unit: "iso4217/USD", value: "1001" })), "ParamsValidation")
        assert.strictEqual(yield* code(holds.capture(access, held.id, { unit: "iso4217/EUR", value: "1" })), "ParamsValidation")
        assert.strictEqual(yield* code(holds.capture({ partnerId: "ptn_other" as PartnerId, mode: "sandbox" }, held.id, undefined)), "PaymentNotFound")
        yield* holds.void(access, held.id)
        assert.strictEqual(yield* code(holds.capture(access, held.id, undefined)), "InvalidState")
        assert.strictEqual(yield* code(holds.void(access, held.id)), "InvalidState")
        const taken = yield* authorized(world)
        yield* holds.capture(access, taken.id, undefined)
        assert.strictEqual(yield* code(holds.void(access, taken.id)), "InvalidState", "nothing left to give back")
        const late = yield* authorized(world)
        yield* TestClock.adjust((late.hold!.captureBefore - nowSeconds) * 1000)
        assert.strictEqual(yield* code(holds.capture(access, late.id, undefined)), "InvalidState")
      })))

  it.effect("the capture window: within its bounds for the mode, and only with capture manual", () =>
    provide(() =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const create = (mode: "live" | "sandbox", capture: Parameters<Payments["Service"]["create"]>[0]["capture"]) =>
          Effect.map(Effect.exit(payments.validate({ partnerId, merchantId, mode, amount: { unit: "iso4217/USD", value: "100" }, referenceId: "r", capture })), Exit.isSuccess)
        assert.isTrue(yield* create("sandbox", { method: "manual", windowSeconds: 10 }))
        assert.isFalse(yield* create("sandbox", { method: "manual", windowSeconds: 9 }))
        assert.isFalse(yield* create("sandbox", { method: "manual", windowSeconds: 30 * 86_400 + 1 }))
        assert.isFalse(yield* create("sandbox", { method: "automatic", windowSeconds: 60 }))
        assert.isTrue(yield* create("sandbox", { method: "automatic" }))
        const made = yield* payments.validate({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "100" }, referenceId: "r", capture: { method: "manual" } })
        assert.strictEqual(made.hold!.captureBefore - made.expiresAt, 7 * 86_400)
        assert.isTrue(made.hold!.voidAtDeadline)
      })))

  it("any sequence of partial captures moves at most the authorization, and all of it once everything is captured", () =>
    fc.assert(fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 12n }),
      fc.bigInt({ min: 1n, max: 10n ** 24n }),
      fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 8 }),
      (value, tokens, parts) =>
        Effect.runSync(provide((world) =>
          Effect.gen(function*() {
            const payment = yield* authorized(world, { value: value.toString(), tokens })
            const holds = yield* Holds
            for (const part of parts) {
              const left = value - current(world, payment.id).hold!.capturedValue -
                current(world, payment.id).hold!.operations.reduce((sum, op) => sum + (op.status === "pending" ? op.value : 0n), 0n)
              if (left === 0n) break
              yield* Effect.exit(holds.capture(access, payment.id, { unit: "iso4217/USD", value: (part > left ? left : part).toString() }))
            }
            yield* Effect.exit(holds.capture(access, payment.id, undefined))
            yield* settle(world, payment.id)
            const hold = current(world, payment.id).hold!
            const moved = hold.operations.filter((op) => op.status === "succeeded").reduce((sum, op) => sum + op.tokenAmount, 0n)
            assert.strictEqual(moved, hold.captured)
            assert.strictEqual(hold.captured, tokens, "everything captured moves every token, once")
            assert.strictEqual(hold.capturedValue, value)
            assert.strictEqual(current(world, payment.id).status, "succeeded")
          }), false))
    ), { numRuns: 60 }))
})

const escrowed = (payment: Payment) => ({
  asset,
  account,
  authorizeBefore: payment.commitment!.authorization!.validBefore,
  salt: payment.commitment!.authorization!.nonce,
  terms: payment.commitment!.authorization!.escrow!
})
