import {
  Commitment,
  EscrowTerms,
  ExportSource,
  Hold,
  HoldOperation,
  HoldWork,
  newHold,
  Payment,
  PaymentRepository,
  PaymentVolume,
  PayoutRepository,
  SignedAuthorization
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlChainWork from "../src/SqlChainWork.ts"
import * as SqlExportSource from "../src/SqlExportSource.ts"
import * as SqlPaymentVolume from "../src/SqlPaymentVolume.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const account = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const asset = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const escrow = "0x00000000000000000000000000000000000e5c20"

const heldCommitment = (salt: string) =>
  new Commitment({
    kind: "pull",
    account,
    asset,
    tokenAmount: 19_990_000n,
    fingerprint: `fp-${salt}`,
    txHash: `0x${salt.slice(2)}`,
    authorization: new SignedAuthorization({
      to: escrow,
      validBefore: 1_700_000_900,
      nonce: salt,
      signature: "0x01",
      escrow: new EscrowTerms({ receiver: "0x0000000000000000000000000000000000000abc", captureBefore: 1_700_004_500, refundBefore: 1_707_780_500 })
    }),
    reference: null,
    walletName: "Test wallet",
    confirmedAt: 1_700_000_100,
    recipient: `eip155:8453:${escrow}`
  })

adapterSuite("Held payments on SQL", (it) => {
  it.effect("a held payment's hold round-trips; authorized ones are the holds queue, and any change makes one due", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const work = yield* HoldWork
      const merchant = yield* newMerchant(yield* newPartner())
      const created = yield* newPayment(merchant, { hold: newHold(1_700_000_900, 3_600, true) })
      yield* repo.insert(created, [])
      const found = yield* repo.findById(created.id)
      assert.deepStrictEqual(Option.getOrThrow(found).hold, created.hold)
      const salt = `0x${"5a".repeat(32)}`
      const authorized = new Payment({
        ...created,
        status: "authorized",
        commitment: heldCommitment(salt),
        hold: new Hold({ ...newHold(1_700_000_900, 3_600, true), authorized: 19_990_000n }),
        stateVersion: 2
      })
      assert.isTrue(yield* repo.update(authorized, []))
      const mine = (ids: ReadonlyArray<string>) => ids.filter((id) => id === created.id)
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [created.id])
      yield* work.release(created.id, 3_600_000)
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [], "waiting for an hour")
      // The merchant asks for a capture: due at once.
      const asked = new Payment({
        ...authorized,
        hold: new Hold({
          ...authorized.hold!,
          operations: [new HoldOperation({
            kind: "capture",
            tokenAmount: 10_000_000n,
            value: 1000n,
            status: "pending",
            txHash: null,
            failure: null,
            requestedBy: "merchant",
            requestedAt: 1_700_001_000,
            completedAt: null
          })]
        }),
        stateVersion: 3
      })
      assert.isTrue(yield* repo.update(asked, []))
      assert.deepStrictEqual(mine(yield* work.claim(100, 60_000)), [created.id])
      const read = yield* repo.findById(created.id)
      assert.strictEqual(Option.getOrThrow(read).hold?.operations[0]?.tokenAmount, 10_000_000n)
      assert.strictEqual(Option.getOrThrow(read).commitment?.authorization?.escrow?.captureBefore, 1_700_004_500)
    }).pipe(Effect.provide(SqlChainWork.layerHolds)))

  it.effect("a succeeded held payment is never paid out again; the held statuses need a hold", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const payouts = yield* PayoutRepository
      const sql = yield* SqlClient.SqlClient
      const merchant = yield* newMerchant(yield* newPartner())
      const held = yield* newPayment(merchant, { hold: newHold(1_700_000_900, 3_600, true) })
      yield* repo.insert(held, [])
      assert.isTrue(yield* repo.update(new Payment({ ...held, status: "processing", commitment: heldCommitment(`0x${"6b".repeat(32)}`), stateVersion: 2 }), []))
      yield* sql`UPDATE payments SET status = 'succeeded' WHERE id = ${held.id}`
      const undecided = yield* payouts.undecided(1000)
      assert.isFalse(undecided.some((p) => p.id === held.id), "its captures went straight to the merchant")
      const plain = yield* newPayment(merchant)
      yield* repo.insert(plain, [])
      const refused = yield* Effect.exit(sql`UPDATE payments SET status = 'authorized' WHERE id = ${plain.id}`)
      assert.isTrue(Exit.isFailure(refused), "only a held payment can be authorized")
    }))

  it.effect("a succeeded held payment counts in the volume for what was captured of it", () =>
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const held = yield* newPayment(merchant, { hold: newHold(1_700_000_900, 3_600, true) })
      yield* repo.insert(held, [])
      const part = new Hold({ ...newHold(1_700_000_900, 3_600, true), authorized: 19_990_000n, captured: 5_000_000n, capturedValue: 500n, released: "voided" })
      assert.isTrue(yield* repo.update(new Payment({ ...held, status: "processing", commitment: heldCommitment(`0x${"7c".repeat(32)}`), stateVersion: 2 }), []))
      yield* (yield* SqlClient.SqlClient)`UPDATE payments SET status = 'succeeded', hold = ${JSON.stringify(Schema.encodeSync(Schema.toCodecJson(Hold))(part))}::jsonb WHERE id = ${held.id}`
      const volume = yield* (yield* PaymentVolume).summarize({ partnerId: merchant.partnerId, mode: merchant.mode, since: 0 })
      assert.deepStrictEqual(volume.currencies.map((c) => [c.currency, c.count, c.value]), [["USD", 1, 500n]])
      assert.deepStrictEqual(volume.assets.map((a) => [a.count, a.value]), [[1, 5_000_000n]])
      // The export: the payment's amount and rate as authorized, the tokens paid as captured.
      const [record] = yield* (yield* ExportSource).page({
        partnerId: merchant.partnerId, mode: merchant.mode, dataset: "payments", fromMillis: 0, toMillis: Number.MAX_SAFE_INTEGER, after: null, limit: 10
      })
      assert.deepStrictEqual([record?.fiatValue, record?.paymentTokenValue, record?.tokenValue], [held.value, 19_990_000n, 5_000_000n])
    }).pipe(Effect.provide(Layer.merge(SqlPaymentVolume.layer, SqlExportSource.layer))))
})
