import {
  ChainWork,
  Commitment,
  DuplicateCommitment,
  type Merchant,
  Payment,
  PaymentRepository,
  SignedAuthorization
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlChainWork from "../src/SqlChainWork.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { eventFor, newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const account = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const asset = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

const commitment = (nonce: string, txHash: string | null = null) =>
  new Commitment({
    kind: "pull",
    account,
    asset,
    tokenAmount: 1_000_000n,
    fingerprint: `fp-${nonce}`,
    txHash,
    authorization: new SignedAuthorization({ to: account.slice(-42), validBefore: 1_900_000_000, nonce, signature: "0x01" }),
    reference: null,
    walletName: "Test wallet",
    confirmedAt: 1_800_000_000
  })

// A requires_action payment moved to processing with `c` (as a confirm does).
const confirmed = (merchant: Merchant, c: Commitment) =>
  Effect.gen(function*() {
    const repo = yield* PaymentRepository
    const payment = yield* newPayment(merchant)
    yield* repo.insert(payment, [])
    const next = new Payment({ ...payment, status: "processing", commitment: c, stateVersion: payment.stateVersion + 1 })
    return { next, written: yield* repo.update(next, []) }
  })

const nonce = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

adapterSuite("SqlChainWork and the once-only commitments", (it) => {
  it.effect("claims due processing payments once per lease; release schedules the next check", () =>
    Effect.gen(function*() {
      const work = yield* ChainWork
      const merchant = yield* newMerchant(yield* newPartner())
      const { next } = yield* confirmed(merchant, commitment(nonce(1)))
      const untouched = yield* newPayment(merchant)
      yield* (yield* PaymentRepository).insert(untouched, [])
      const mine = (ids: ReadonlyArray<string>) => ids.filter((id) => id === next.id || id === untouched.id)
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [next.id], "only processing payments")
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [], "leased")
      yield* work.release(next.id, 60_000)
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [], "not due yet")
      yield* work.release(next.id, 0)
      // A worker that dies holding it: the lease ends and another claims it.
      assert.deepStrictEqual(mine(yield* work.claim(100, 1)), [next.id])
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [next.id])
    }).pipe(Effect.provide(SqlChainWork.layer)))

  it.effect("an authorization or a transfer pays for one payment only; one transaction may carry several transfers", () =>
    Effect.gen(function*() {
      const merchant = yield* newMerchant(yield* newPartner())
      assert.isTrue((yield* confirmed(merchant, commitment(nonce(2)))).written)
      const replay = yield* Effect.flip(confirmed(merchant, commitment(nonce(2))))
      assert.instanceOf(replay, DuplicateCommitment)
      const hash = `0x${"ab".repeat(32)}`
      assert.isTrue((yield* confirmed(merchant, commitment(nonce(3), hash))).written)
      // A multicall using two authorizations: two transfers in one transaction, each its own payment's.
      const upper = hash.toUpperCase().replace("0X", "0x")
      assert.isTrue((yield* confirmed(merchant, commitment(nonce(4), upper))).written)
      // The same transfer (transaction and authorization) never pays a second payment, whatever its case.
      const sameTransfer = yield* Effect.flip(confirmed(merchant, commitment(nonce(3), upper)))
      assert.instanceOf(sameTransfer, DuplicateCommitment)
    }))

  it.effect("a confirm replaying another payment's authorization, written with its event in one statement, changes nothing and tells no one", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      assert.isTrue((yield* confirmed(merchant, commitment(nonce(5)))).written)
      // A buyer signs once and confirms the same authorization on a second payment, as the API writes a confirm.
      const second = yield* newPayment(merchant)
      yield* repo.insert(second, [])
      const replay = new Payment({ ...second, status: "processing", commitment: commitment(nonce(5)), stateVersion: second.stateVersion + 1 })
      const refused = yield* Effect.flip(repo.update(replay, [yield* eventFor(replay, "payment.processing")]))
      assert.instanceOf(refused, DuplicateCommitment)
      assert.deepStrictEqual(yield* repo.findById(second.id), Option.some(second))
      assert.deepStrictEqual(yield* sql`SELECT id FROM outbox_events WHERE payment_id = ${second.id}`, [])
    }))
})
