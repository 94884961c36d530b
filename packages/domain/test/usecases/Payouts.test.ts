import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId, SettlementId } from "../../src/ids/Ids.ts"
import { CryptoSettlement } from "../../src/merchant/CryptoSettlement.ts"
import { Commitment, Payment } from "../../src/payment/Payment.ts"
import { Payout, type PayoutKind, SignedTransfer } from "../../src/payout/Payout.ts"
import { ChainUnavailable } from "../../src/ports/ChainUnavailable.ts"
import { RefundRepository } from "../../src/ports/RefundRepository.ts"
import { PaymentRepository } from "../../src/ports/PaymentRepository.ts"
import { PayoutLimits } from "../../src/ports/PayoutLimits.ts"
import { PayoutRepository } from "../../src/ports/PayoutRepository.ts"
import { type PayoutOutcome, PayoutReverted, Payouts } from "../../src/ports/Payouts.ts"
import { layerMemoryPayouts } from "../../src/testing/MemoryPayoutRepository.ts"
import { latestRefundOf, makeMemoryRefunds, type MemoryPayouts, type MemoryRefunds, payoutKey } from "../../src/testing/MemoryPayoutStore.ts"
import { layerMemoryRefunds } from "../../src/testing/MemoryRefundRepository.ts"
import { layerMemorySettlements, makeMemorySettlements, type MemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { layerMemory, makeMemoryStore, type MemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { systemAccess } from "../../src/usecases/Access.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { PayoutExecutions, PayoutPolicy } from "../../src/usecases/PayoutExecutions.ts"
import { makePayoutWrites } from "../../src/usecases/PayoutWrites.ts"
import { Refunds } from "../../src/usecases/Refunds.ts"
import { SettlementDecisions } from "../../src/usecases/SettlementDecisions.ts"
import { envelopeOf } from "../../src/webhooks/Envelope.ts"

const partnerId = "ptn_pay" as PartnerId
const merchantId = "mer_pay" as MerchantId
const start = 1_800_000_000_000
const payer = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const destination = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const dai = "eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0F"

/** A scripted chain: how sends go, what each transaction's outcome is, and what was broadcast. */
interface Script {
  send: "ok" | "down" | "reverts" | "down-after-record"
  outcome: (txHash: string) => PayoutOutcome
  /** Transfers signed. */
  signed: number
  /** Hashes broadcast (sends and resends), in order. */
  broadcast: Array<string>
  /** Runs between signing and recording (to let another worker in). */
  beforeRecord?: Effect.Effect<void> | undefined
}

const newScript = (patch: Partial<Script> = {}): Script => ({
  send: "ok",
  outcome: () => "pending",
  signed: 0,
  broadcast: [],
  ...patch
})

const scriptedPayouts = (script: Script) =>
  Layer.succeed(Payouts, Payouts.of({
    send: (transfer, record) =>
      Effect.gen(function*() {
        if (script.send === "down") return yield* new ChainUnavailable({ chainId: "eip155:1", message: "connection refused" })
        if (script.send === "reverts") return yield* new PayoutReverted({ message: "transfer amount exceeds balance" })
        script.signed++
        const signed = new SignedTransfer({ txHash: `0x${script.signed.toString(16).padStart(64, "0")}`, raw: `0x02${script.signed}` })
        if (transfer.recipient === "" || transfer.value <= 0n) return yield* Effect.die("bad transfer")
        if (script.beforeRecord !== undefined) yield* script.beforeRecord
        if (!(yield* record(signed))) return Option.none()
        if (script.send === "down-after-record") return yield* new ChainUnavailable({ chainId: "eip155:1", message: "timeout" })
        script.broadcast.push(signed.txHash)
        return Option.some(signed)
      }),
    resend: (_asset, signed) => Effect.sync(() => void script.broadcast.push(signed.txHash)),
    observe: (_transfer, signed) => Effect.sync(() => script.outcome(signed.txHash))
  }))

interface Stores {
  readonly payments: MemoryStore
  readonly refunds: MemoryRefunds
  readonly payouts: MemoryPayouts
  readonly settlements: MemorySettlements
}

// The use cases, and the ports under them for tests that write as the worker does.
type Services = Payments | Refunds | SettlementDecisions | PayoutExecutions | PaymentRepository | RefundRepository | PayoutRepository | IdGenerator

// `listsWaiting`: the payout store lists payments whose destination waits too (as one read before a change would).
const provide = <A, E>(script: Script, body: (stores: Stores) => Effect.Effect<A, E, Services>, maxAttempts = 3, listsWaiting = false) => {
  const payments = makeMemoryStore()
  const refunds = makeMemoryRefunds()
  const settlements = makeMemorySettlements()
  settlements.settlements.set("stl_usdc" as SettlementId, new CryptoSettlement({
    id: "stl_usdc" as SettlementId,
    merchantId,
    asset: usdc,
    destination,
    createdAt: 0,
    updatedAt: 0,
    usableFrom: 0
  }))
  return Effect.provide(
    Effect.andThen(TestClock.setTime(start), body({ payments, refunds, payouts: refunds.payouts, settlements })),
    Layer.mergeAll(Payments.layer, Refunds.layer, SettlementDecisions.layer, PayoutExecutions.layer).pipe(
      Layer.provideMerge(IdGenerator.layer),
      Layer.provideMerge([
        layerMemory(payments),
        layerMemoryRefunds(refunds),
        layerMemoryPayouts({ payments, refunds, settlements, listsWaiting }),
        layerMemorySettlements(settlements),
        scriptedPayouts(script),
        oneMerchant(partnerId, merchantId),
        seededSecureRandom(5),
        Layer.succeed(PayoutPolicy, { maxAttempts }),
        PayoutLimits.layerNone
      ])
    )
  )
}

// A payment that succeeded in `asset` (the confirm written directly, then the chain's outcome).
const succeeded = (store: MemoryStore, asset = usdc) =>
  Effect.gen(function*() {
    const created = yield* Payments.use((p) =>
      p.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "o-1" }))
    const commitment = new Commitment({
      kind: "push",
      account: payer,
      asset,
      tokenAmount: 12_500_000n,
      fingerprint: "fp",
      txHash: `0xfeed${created.id}`,
      authorization: null,
      reference: "0x01",
      walletName: "Test wallet",
      confirmedAt: start / 1000
    })
    store.payments.set(created.id, new Payment({ ...created, status: "processing", commitment, stateVersion: created.stateVersion + 1 }))
    yield* Payments.use((p) => p.settleOutcome(created.id, "succeeded", commitment.txHash))
    return created.id
  })

const decide = SettlementDecisions.use((d) => d.decideNext(100))
const advance = (paymentId: PaymentId, kind: PayoutKind) => PayoutExecutions.use((e) => e.advance({ paymentId, kind }))
const refund = (paymentId: PaymentId) => Refunds.use((r) => r.request(systemAccess, paymentId))
const payoutOf = (stores: Stores, id: PaymentId, kind: PayoutKind) => stores.payouts.payouts.get(payoutKey(id, kind))
const eventTypes = (store: MemoryStore, id: PaymentId) => store.events.filter((e) => e.paymentId === id).map((e) => e.type)

describe("SettlementDecisions", () => {
  it.effect("settles a succeeded payment in an asset with a destination, once, and no other", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const settled = yield* succeeded(stores.payments)
        const kept = yield* succeeded(stores.payments, dai)
        assert.strictEqual(yield* decide, 2)
        assert.strictEqual(yield* decide, 0, "decided once")
        const payout = payoutOf(stores, settled, "settlement")!
        assert.deepStrictEqual(
          [payout.status, payout.recipient, payout.asset, payout.value, payout.transfer],
          ["pending", destination, usdc, 12_500_000n, null],
          "the whole token amount: no fee"
        )
        assert.isUndefined(payoutOf(stores, kept, "settlement"), "no destination for the asset: no settlement stage")
      })))

  it.effect("a payment refunded before its decision is not settled", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* refund(id)
        yield* decide
        assert.isUndefined(payoutOf(stores, id, "settlement"))
        assert.strictEqual(payoutOf(stores, id, "refund")!.recipient, payer)
      })))

  it.effect("a payment refunded in part before its decision settles exactly the rest, on the next leg", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        // 5.00 of 12.50: 5,000,000 of the 12,500,000 token units.
        yield* Refunds.use((r) => r.request(systemAccess, id, { unit: "iso4217/USD", value: "500" }))
        assert.strictEqual(yield* decide, 1)
        const settlement = stores.payouts.payouts.get(payoutKey(id, "settlement", 1))!
        assert.deepStrictEqual([settlement.value, settlement.recipient], [7_500_000n, destination])
        assert.strictEqual(payoutOf(stores, id, "refund")!.value, 5_000_000n)
      })))

  it.effect("a payment whose destination is not usable yet waits undecided, without holding up the others, and settles once it is", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const row = stores.settlements.settlements.get("stl_usdc" as SettlementId)!
        stores.settlements.settlements.set(row.id, new CryptoSettlement({ ...row, usableFrom: start + 3_600_000 }))
        const waiting = yield* succeeded(stores.payments)
        const other = yield* succeeded(stores.payments, dai)
        // A batch of one: the waiting payment (the older) must not take it.
        assert.strictEqual(yield* SettlementDecisions.use((d) => d.decideNext(1)), 1)
        assert.isTrue(stores.payouts.decided.has(other))
        assert.strictEqual(yield* decide, 0, "nothing to decide while the destination waits")
        assert.isFalse(stores.payouts.decided.has(waiting), "not decided: neither forwarded nor kept")
        assert.isUndefined(payoutOf(stores, waiting, "settlement"))
        yield* TestClock.adjust(Duration.minutes(59))
        assert.strictEqual(yield* decide, 0)
        yield* TestClock.adjust(Duration.minutes(1))
        assert.strictEqual(yield* decide, 1, "decided once the destination is usable")
        const payout = payoutOf(stores, waiting, "settlement")!
        assert.deepStrictEqual([payout.recipient, payout.value], [destination, 12_500_000n])
      })))

  it.effect("decides nothing for a payment listed while its destination waits (listed before a change)", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        const row = stores.settlements.settlements.get("stl_usdc" as SettlementId)!
        stores.settlements.settlements.set(row.id, new CryptoSettlement({ ...row, destination: payer, usableFrom: start + 1 }))
        assert.strictEqual(yield* decide, 0, "listed, but not decided")
        assert.isFalse(stores.payouts.decided.has(id))
        assert.isUndefined(payoutOf(stores, id, "settlement"))
        yield* TestClock.adjust(Duration.millis(1))
        assert.strictEqual(yield* decide, 1)
        assert.strictEqual(payoutOf(stores, id, "settlement")!.recipient, payer)
      }), 3, true))
})

describe("PayoutExecutions.advance", () => {
  it.effect("sends the settlement once (recorded first), watches it, completes it with payment.settled", () => {
    const script = newScript()
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        const version = stores.payments.payments.get(id)!.stateVersion
        assert.strictEqual(yield* advance(id, "settlement"), "pending")
        const sent = payoutOf(stores, id, "settlement")!
        assert.deepStrictEqual(script.broadcast, [sent.transfer!.txHash])
        // Still on its way: the same bytes are broadcast again, never a new transfer.
        assert.strictEqual(yield* advance(id, "settlement"), "pending")
        assert.strictEqual(script.signed, 1)
        assert.deepStrictEqual(script.broadcast, [sent.transfer!.txHash, sent.transfer!.txHash])
        script.outcome = () => "succeeded"
        yield* TestClock.adjust("10 seconds")
        assert.strictEqual(yield* advance(id, "settlement"), "final")
        const done = payoutOf(stores, id, "settlement")!
        assert.strictEqual(done.status, "completed")
        assert.strictEqual(done.completedAt, start + 10_000)
        const payment = stores.payments.payments.get(id)!
        assert.strictEqual(payment.stateVersion, version + 1)
        assert.deepStrictEqual(eventTypes(stores.payments, id), ["payment.created", "payment.succeeded", "payment.settled"])
        const event = stores.payments.events.at(-1)!
        assert.deepStrictEqual(event.stage, { status: "completed", txHash: sent.transfer!.txHash, settledAt: (start + 10_000) / 1000 })
        assert.strictEqual(event.payment.stateVersion, version + 1)
        // The webhook's payment snapshot shows the settlement too.
        const envelope = envelopeOf(event, "2025-01-01")
        assert.deepStrictEqual<unknown>(envelope.data.payment.settlement, event.stage)
        assert.strictEqual(envelope.data.payment.stateVersion, version + 1)
        // The transaction links to the chain's explorer when it has one; none by default.
        const { chainId, hash } = envelope.data.payment.transaction!
        assert.isNull(envelope.data.payment.transaction!.explorerUrl)
        const linked = envelopeOf(event, "2025-01-01", { transaction: (chain, tx) => `https://explorer.example/${chain}/tx/${tx}` })
        assert.strictEqual(linked.data.payment.transaction!.explorerUrl, `https://explorer.example/${chainId}/tx/${hash}`)
        assert.strictEqual(yield* advance(id, "settlement"), "final")
        assert.strictEqual(script.signed, 1)
      }))
  })

  it.effect("a chain that cannot be reached leaves the payout pending (unknown); a lost broadcast is broadcast again", () => {
    const script = newScript({ send: "down" })
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        assert.strictEqual(yield* advance(id, "settlement"), "unknown")
        assert.isNull(payoutOf(stores, id, "settlement")!.transfer)
        // Recorded, then the broadcast failed: the recorded transfer stands and goes out later.
        script.send = "down-after-record"
        assert.strictEqual(yield* advance(id, "settlement"), "unknown")
        const recorded = payoutOf(stores, id, "settlement")!.transfer!
        assert.deepStrictEqual(script.broadcast, [])
        script.send = "ok"
        assert.strictEqual(yield* advance(id, "settlement"), "pending")
        assert.deepStrictEqual(script.broadcast, [recorded.txHash])
        script.outcome = () => "unknown"
        assert.strictEqual(yield* advance(id, "settlement"), "unknown")
        script.outcome = () => "succeeded"
        assert.strictEqual(yield* advance(id, "settlement"), "final")
        assert.strictEqual(script.signed, 1)
        assert.strictEqual(payoutOf(stores, id, "settlement")!.status, "completed")
      }))
  })

  it.effect("of two workers on one payout, one records its transfer; the other broadcasts nothing", () => {
    const script = newScript()
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        script.beforeRecord = Effect.yieldNow
        const steps = yield* Effect.all([advance(id, "settlement"), advance(id, "settlement")], { concurrency: "unbounded" })
        assert.deepStrictEqual(steps, ["pending", "pending"])
        assert.strictEqual(script.signed, 2, "both signed")
        assert.deepStrictEqual(script.broadcast, [payoutOf(stores, id, "settlement")!.transfer!.txHash], "one was sent")
      }))
  })

  it.effect("a reverted transfer is retried with a new one; after the last attempt the payout failed, visibly", () => {
    const script = newScript({ outcome: () => "reverted" })
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        const version = stores.payments.payments.get(id)!.stateVersion
        yield* refund(id)
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.strictEqual(latestRefundOf(stores.refunds, id)!.txHash, payoutOf(stores, id, "refund")!.transfer!.txHash)
        assert.strictEqual(yield* advance(id, "refund"), "retry")
        assert.deepStrictEqual([payoutOf(stores, id, "refund")!.attempts, payoutOf(stores, id, "refund")!.transfer], [1, null])
        assert.isNull(latestRefundOf(stores.refunds, id)!.txHash)
        // Estimating already reverts: an attempt too, and nothing is signed.
        script.send = "reverts"
        assert.strictEqual(yield* advance(id, "refund"), "retry")
        assert.strictEqual(script.signed, 1)
        script.send = "ok"
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.strictEqual(yield* advance(id, "refund"), "final")
        const failed = payoutOf(stores, id, "refund")!
        assert.deepStrictEqual([failed.status, failed.attempts], ["failed", 3])
        assert.include(failed.lastError, "reverted (attempt 3 of 3)")
        const record = latestRefundOf(stores.refunds, id)!
        assert.deepStrictEqual([record.status, record.txHash], ["failed", failed.transfer!.txHash])
        assert.strictEqual(stores.payments.payments.get(id)!.stateVersion, version + 1)
        assert.deepStrictEqual(eventTypes(stores.payments, id), ["payment.created", "payment.succeeded", "payment.refund_failed"])
      }))
  })

  it.effect("a dropped transfer (its nonce went elsewhere) is replaced without counting an attempt", () => {
    const script = newScript({ outcome: (hash) => (hash.endsWith("1") ? "dropped" : "succeeded") })
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* refund(id)
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.isNull(payoutOf(stores, id, "refund")!.transfer)
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.strictEqual(yield* advance(id, "refund"), "final")
        const done = payoutOf(stores, id, "refund")!
        assert.deepStrictEqual([done.status, done.attempts, script.signed], ["completed", 0, 2])
        assert.deepStrictEqual(
          [latestRefundOf(stores.refunds, id)!.status, latestRefundOf(stores.refunds, id)!.txHash],
          ["completed", done.transfer!.txHash]
        )
      }))
  })

  it.effect("a transfer included without paying the recipient fails the payout at once: never sent again", () => {
    const script = newScript({ outcome: () => "failed" })
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        yield* advance(id, "settlement")
        assert.strictEqual(yield* advance(id, "settlement"), "final")
        assert.strictEqual(payoutOf(stores, id, "settlement")!.status, "failed")
        assert.strictEqual(script.signed, 1)
        assert.deepStrictEqual(eventTypes(stores.payments, id), ["payment.created", "payment.succeeded"], "not settled")
      }))
  })
})

describe("Refunds and settlements: a payment's funds leave once", () => {
  it.effect("a refund withdraws a settlement not yet signed; a worker holding it then sends nothing", () => {
    const script = newScript()
    return provide(script, (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        // The worker signs; the refund comes in before it records.
        const refunds = yield* Refunds
        script.beforeRecord = Effect.asVoid(Effect.orDie(refunds.request(systemAccess, id)))
        assert.strictEqual(yield* advance(id, "settlement"), "pending")
        assert.deepStrictEqual(script.broadcast, [])
        assert.isUndefined(payoutOf(stores, id, "settlement"))
        script.beforeRecord = undefined
        assert.strictEqual(yield* advance(id, "settlement"), "final")
        assert.strictEqual(yield* advance(id, "refund"), "pending")
        assert.strictEqual(payoutOf(stores, id, "refund")!.recipient, payer)
      }))
  })

  it.effect("a refund of a payment whose settlement was sent is invalid_state, and nothing changes", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* decide
        yield* advance(id, "settlement")
        const error = yield* Effect.flip(refund(id))
        assert.strictEqual(error._tag, "InvalidState")
        assert.strictEqual(stores.refunds.refunds.size, 0)
        assert.isUndefined(payoutOf(stores, id, "refund"))
      })))
})

describe("A refund paid back to several senders", () => {
  it.effect("its two legs completing at once complete the refund, whichever commits second", () =>
    provide(newScript(), (stores) =>
      Effect.gen(function*() {
        const id = yield* succeeded(stores.payments)
        yield* refund(id)
        // Paid by two senders: the refund goes back in two legs.
        const leg0 = payoutOf(stores, id, "refund")!
        const leg1 = new Payout({ ...leg0, leg: 1, recipient: destination, value: 7_500_000n })
        stores.payouts.payouts.set(payoutKey(id, "refund", 0), new Payout({ ...leg0, value: 5_000_000n }))
        stores.payouts.payouts.set(payoutKey(id, "refund", 1), leg1)
        const completedOf = (p: Payout, n: number) =>
          new Payout({
            ...p,
            status: "completed",
            transfer: new SignedTransfer({ txHash: `0x${n.toString().repeat(64)}`, raw: "0x02" }),
            version: p.version + 1,
            completedAt: start
          })
        const ports = { payouts: yield* PayoutRepository, refunds: yield* RefundRepository, ids: yield* IdGenerator }
        const payments = yield* PaymentRepository
        const second = makePayoutWrites({ ...ports, payments })
        // Leg 1's completion commits just as leg 0's writer reads the payment.
        let raced = false
        const first = makePayoutWrites({
          ...ports,
          payments: PaymentRepository.of({
            ...payments,
            findById: (paymentId) =>
              Effect.andThen(
                raced ? Effect.void : Effect.tap(second.write(leg1, completedOf(leg1, 2)), () => Effect.sync(() => (raced = true))),
                payments.findById(paymentId)
              )
          })
        })
        const leg0Now = stores.payouts.payouts.get(payoutKey(id, "refund", 0))!
        assert.isTrue(yield* first.write(leg0Now, completedOf(leg0Now, 1)))
        assert.isTrue(raced)
        assert.strictEqual(latestRefundOf(stores.refunds, id)!.status, "completed")
        assert.deepStrictEqual(eventTypes(stores.payments, id).filter((t) => t.startsWith("payment.refund")), ["payment.refunded"])
      })))
})
