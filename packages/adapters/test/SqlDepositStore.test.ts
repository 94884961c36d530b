import { type DepositKey, DepositStore, PaymentRepository, SignedTransfer } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const chainId = "eip155:1"
const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
let counter = 0

/** A stored payment with a deposit address handed out at `createdAt`. */
const deposit = (createdAt = 1_000) =>
  Effect.gen(function*() {
    const payment = yield* newPayment(yield* newMerchant(yield* newPartner()))
    yield* (yield* PaymentRepository).insert(payment, []).pipe(Effect.orDie)
    const address = `0x${(++counter).toString(16).padStart(40, "0")}`
    yield* (yield* DepositStore).ensure({ chainId, address, paymentId: payment.id, createdAt })
    return { key: { chainId, address, asset } satisfies DepositKey, paymentId: payment.id }
  })

const signed = (n: number) => new SignedTransfer({ txHash: `0x${n.toString(16).padStart(64, "0")}`, raw: `0x0${n}` })

adapterSuite("SqlDepositStore", (it) => {
  it.effect("an address is recorded once per payment and chain; the watcher follows those handed out since a time or not swept", () =>
    Effect.gen(function*() {
      const store = yield* DepositStore
      const old = yield* deposit(1_000)
      const recent = yield* deposit(5_000)
      // Handed out again: the first record stands, and is answered.
      assert.strictEqual(yield* store.ensure({ chainId, address: old.key.address, paymentId: old.paymentId, createdAt: 9_000 }), old.key.address)
      // Another address for the same payment and chain (a newer factory's): the one on record is the payment's, nothing added.
      const newer = `0x${"AB".repeat(20)}`
      assert.strictEqual(yield* store.ensure({ chainId, address: newer, paymentId: old.paymentId, createdAt: 9_000 }), old.key.address)
      assert.strictEqual(yield* store.ensure({ chainId: "eip155:10", address: newer, paymentId: old.paymentId, createdAt: 9_000 }), newer.toLowerCase())
      const sql = yield* SqlClient.SqlClient
      const clash = yield* Effect.exit(sql`INSERT INTO deposit_addresses (chain_id, address, payment_id, created_at)
        VALUES (${chainId}, ${"0x" + "f".repeat(40)}, ${old.paymentId}, 1)`)
      assert.strictEqual(clash._tag, "Failure")
      const watched = (since = 2_000) => Effect.map(store.watched(chainId, since), (all) => all.map((d) => [d.address, d.paymentId]))
      // Nothing arrived at the old one yet: followed however late.
      assert.deepStrictEqual(yield* watched(), [[old.key.address, old.paymentId], [recent.key.address, recent.paymentId]])
      // Swept before the time: no longer followed (the recent one, never swept, still is).
      yield* store.markDue(old.key)
      const [sweep] = yield* store.claim(10, 1_000)
      yield* store.nothingLeft(sweep!)
      assert.deepStrictEqual(yield* watched(), [[old.key.address, old.paymentId], [recent.key.address, recent.paymentId]])
      const later = (yield* Clock.currentTimeMillis) + 1
      assert.deepStrictEqual(yield* watched(later), [[recent.key.address, recent.paymentId]])
      // Another token arrived there and is not swept yet: followed again.
      yield* store.markDue({ ...old.key, asset: `${chainId}/erc20:0x${"12".repeat(20)}` })
      assert.deepStrictEqual(yield* watched(later), [[old.key.address, old.paymentId], [recent.key.address, recent.paymentId]])
    }))

  it.effect("marks, claims with a lease, records a batch all or nothing, and sweeps up to the version the sweep covered", () =>
    Effect.gen(function*() {
      const store = yield* DepositStore
      yield* TestClock.setTime(10_000)
      const a = yield* deposit()
      const b = yield* deposit()
      yield* store.markDue(a.key)
      yield* store.markDue(b.key)
      const claimed = yield* store.claim(10, 1_000)
      assert.deepStrictEqual(claimed.map((s) => [s.paymentId, s.markedVersion, s.sweptVersion]).sort(), [[a.paymentId, 1, 0], [b.paymentId, 1, 0]].sort())
      // Leased: nobody else gets them.
      assert.deepStrictEqual(yield* store.claim(10, 1_000), [])

      // b got a sweep of its own meanwhile: the batch is not recorded on a either.
      const [sa, sb] = [claimed.find((s) => s.paymentId === a.paymentId)!, claimed.find((s) => s.paymentId === b.paymentId)!]
      assert.isTrue(yield* store.recordSweep([sb], signed(1)))
      assert.isFalse(yield* store.recordSweep([sa, sb], signed(2)))
      yield* TestClock.setTime(20_000)
      const again = yield* store.claim(10, 1_000)
      assert.deepStrictEqual(again.map((s) => [s.paymentId, s.transfer?.txHash ?? null]).sort(), [[a.paymentId, null], [b.paymentId, signed(1).txHash]].sort())

      // A transfer noticed after the sweep was signed keeps b due once the sweep succeeded.
      yield* store.markDue(b.key)
      yield* store.swept(signed(1).txHash, [])
      // The job releases what it advanced.
      yield* store.release(a.key, 0)
      yield* store.release(b.key, 0)
      const afterSweep = yield* store.claim(10, 1_000)
      assert.deepStrictEqual(afterSweep.map((s) => [s.paymentId, s.markedVersion, s.sweptVersion, s.transfer]).sort(), [
        [a.paymentId, 1, 0, null],
        [b.paymentId, 2, 1, null]
      ].sort())

      // A reverted sweep frees its deposits, counting the attempt; an empty deposit is swept as it stands.
      const bNow = afterSweep.find((s) => s.paymentId === b.paymentId)!
      assert.isTrue(yield* store.recordSweep([bNow], signed(3)))
      yield* store.abandon(signed(3).txHash, "reverted")
      yield* store.nothingLeft(afterSweep.find((s) => s.paymentId === a.paymentId)!)
      yield* TestClock.setTime(30_000)
      const last = yield* store.claim(10, 1_000)
      assert.deepStrictEqual(last.map((s) => [s.paymentId, s.transfer, s.attempts]), [[b.paymentId, null, 1]])
    }).pipe(Effect.provide(TestClock.layer())))
})
