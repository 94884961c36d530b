import { SqlBuyerDataStore, SqlDataCollectionThresholds, WebhookAdapters } from "@paygate/adapters"
import { BuyerDataStore, DataCollectionThresholds, PaymentRepository } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const alice = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const bob = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const data = { fullName: "Ada Lovelace", dob: "1815-12-10", tosConfirmed: true, porCountry: "GB", porAddress: "12 St James's Square" }

const storedPayment = Effect.gen(function*() {
  const partner = yield* newPartner()
  const payment = yield* newPayment(yield* newMerchant(partner))
  yield* (yield* PaymentRepository).insert(payment, []).pipe(Effect.orDie)
  return payment
})

const cipherKey = new Uint8Array(32).fill(5)
const withStore = <A, E, R>(effect: Effect.Effect<A, E, R | BuyerDataStore>, key = cipherKey) =>
  Effect.provide(effect, SqlBuyerDataStore.layer.pipe(Layer.provide(WebhookAdapters.SecretCipher.layerKey(key))))

adapterSuite("SqlBuyerDataStore", (it) => {
  it.effect("round-trips the data of each (payment, account); a later save replaces it", () =>
    withStore(Effect.gen(function*() {
      const store = yield* BuyerDataStore
      const payment = yield* storedPayment
      const other = yield* storedPayment
      assert.deepStrictEqual([...(yield* store.providedBy(payment.id))], [])
      assert.isTrue(Option.isNone(yield* store.find(payment.id, alice)))
      yield* store.save(payment.id, alice, Redacted.make(data))
      yield* store.save(other.id, bob, Redacted.make({ fullName: "Bob" }))
      assert.deepStrictEqual(Option.map(yield* store.find(payment.id, alice), Redacted.value), Option.some(data))
      assert.deepStrictEqual([...(yield* store.providedBy(payment.id))], [alice])
      assert.isTrue(Option.isNone(yield* store.find(payment.id, bob)))
      yield* store.save(payment.id, alice, Redacted.make({ ...data, fullName: "Ada King" }))
      assert.deepStrictEqual(Option.map(yield* store.find(payment.id, alice), (d) => Redacted.value(d).fullName), Option.some("Ada King"))
      assert.deepStrictEqual([...(yield* store.providedBy(other.id))], [bob])
    })))

  it.effect("keeps the data encrypted at rest, bound to its payment and account", () =>
    withStore(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* BuyerDataStore
      const payment = yield* storedPayment
      yield* store.save(payment.id, alice, Redacted.make(data))
      const rows = yield* sql<{ readonly data: string }>`SELECT data FROM buyer_data WHERE payment_id = ${payment.id}`
      assert.strictEqual(rows.length, 1)
      const raw = rows[0]!.data
      assert.match(raw, /^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/)
      // Neither the text nor its bytes (a base64 encoding is no encryption). Short values are looked for
      // with their JSON quotes: a bare "GB" turns up in random ciphertext every few dozen runs.
      const stored = Buffer.concat(raw.split(".").slice(1).map((part) => Buffer.from(part, "base64"))).toString("latin1")
      for (const plain of ["Ada Lovelace", "1815-12-10", "St James", "fullName", "porCountry", "\"GB\""]) {
        assert.notInclude(raw, plain)
        assert.notInclude(stored, plain)
      }
      // Nothing else in the database holds it either.
      const dump = yield* sql<{ readonly text: string }>`SELECT row_to_json(b)::text AS text FROM buyer_data b`
      assert.notInclude(dump[0]!.text, "Lovelace")
      // Moved onto another account, the ciphertext does not decrypt: a defect, not someone else's data.
      yield* sql`INSERT INTO buyer_data (payment_id, account, data, created_at, updated_at)
        VALUES (${payment.id}, ${bob}, ${raw}, 0, 0)`
      const moved = yield* Effect.exit(store.find(payment.id, bob))
      assert.isTrue(moved._tag === "Failure")
      assert.notInclude(JSON.stringify(moved), bob)
    })))

  it.effect("needs the same key to read it back", () =>
    Effect.gen(function*() {
      const payment = yield* storedPayment
      yield* withStore(BuyerDataStore.use((s) => s.save(payment.id, alice, Redacted.make(data))))
      const read = yield* Effect.exit(withStore(BuyerDataStore.use((s) => s.find(payment.id, alice)), new Uint8Array(32).fill(6)))
      assert.isTrue(read._tag === "Failure")
    }))
})

adapterSuite("SqlDataCollectionThresholds", (it) => {
  const thresholdOf = (partnerId: Parameters<DataCollectionThresholds["Service"]["thresholdOf"]>[0]) =>
    DataCollectionThresholds.use((t) => t.thresholdOf(partnerId)).pipe(Effect.provide(SqlDataCollectionThresholds.layer))

  it.effect("a partner uses the default until a threshold is set; null returns to it", () =>
    Effect.gen(function*() {
      const partner = yield* newPartner()
      assert.isTrue(Option.isNone(yield* thresholdOf(partner.id)))
      assert.isTrue(yield* SqlDataCollectionThresholds.setThreshold(partner.id, "250.50"))
      assert.deepStrictEqual(yield* thresholdOf(partner.id), Option.some("250.50"))
      assert.isTrue(yield* SqlDataCollectionThresholds.setThreshold(partner.id, "0"))
      assert.deepStrictEqual(yield* thresholdOf(partner.id), Option.some("0"))
      assert.isTrue(yield* SqlDataCollectionThresholds.setThreshold(partner.id, null))
      assert.isTrue(Option.isNone(yield* thresholdOf(partner.id)))
    }))

  it.effect("refuses malformed thresholds and unknown partners", () =>
    Effect.gen(function*() {
      const partner = yield* newPartner()
      for (const bad of ["-1", "1e3", "abc", "", "1,000"]) {
        const error = yield* Effect.flip(SqlDataCollectionThresholds.setThreshold(partner.id, bad))
        assert.strictEqual(error._tag, "InvalidThreshold")
      }
      assert.isTrue(Option.isNone(yield* thresholdOf(partner.id)))
      assert.isFalse(yield* SqlDataCollectionThresholds.setThreshold("ptn_nobody", "5"))
    }))
})
