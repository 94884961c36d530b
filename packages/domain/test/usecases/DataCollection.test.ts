import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import { OptionIds } from "../../src/gateway/OptionId.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId } from "../../src/ids/Ids.ts"
import { layerTestDataCollection, type MemoryBuyerData } from "../../src/testing/DataCollectionPorts.ts"
import { catalogOf, layerMemoryQuotes, pricesOf, recordedActions } from "../../src/testing/GatewayPorts.ts"
import { layerMemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { layerMemory } from "../../src/testing/MemoryStore.ts"
import { layerMemoryMerchants, makeMemoryMerchants } from "../../src/testing/MemoryMerchantRepository.ts"
import { screeningList, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { Merchant } from "../../src/merchant/Merchant.ts"
import type { Access } from "../../src/usecases/Access.ts"
import { DataCollection } from "../../src/usecases/DataCollection.ts"
import { PaymentOptions } from "../../src/usecases/PaymentOptions.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { usdcOnBase as usdc } from "./GatewayFixtures.ts"

const partnerId = "ptn_dc" as PartnerId
const lowPartnerId = "ptn_low" as PartnerId
const merchantId = "mer_dc" as MerchantId
const lowMerchantId = "mer_low" as MerchantId
const access: Access = { mode: "sandbox" }
const start = 1_800_000_000_000
const page = "https://collect.test/form"

const alice = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const bob = "eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const sanctioned = "eip155:8453:0x000000000000000000000000000000000000dEaD"

// The stub stands in for the JSON Schema validator of the adapters: a name and confirmed terms.
const check = (data: unknown): ReadonlyArray<string> => {
  const record = data as Record<string, unknown>
  return [
    ...(typeof record.fullName === "string" && record.fullName !== "" ? [] : ["fullName is required"]),
    ...(record.tosConfirmed === true ? [] : ["tosConfirmed must be true"])
  ]
}
const valid = { fullName: "Ada Lovelace", dob: "1815-12-10", tosConfirmed: true, porCountry: "GB", porAddress: "London" }

// One merchant of a partner on the default threshold, one of a partner with a 10.00 threshold.
const twoMerchants = Layer.unwrap(Effect.sync(() => {
  const store = makeMemoryMerchants()
  for (const [id, partner] of [[merchantId, partnerId], [lowMerchantId, lowPartnerId]] as const) {
    store.merchants.set(id, new Merchant({ id, partnerId: partner, mode: "sandbox", name: id, email: null, iconUrl: null, deleted: false, createdAt: 0, updatedAt: 0 }))
  }
  return layerMemoryMerchants(store)
}))

const layer = (records: MemoryBuyerData) =>
  Layer.mergeAll(PaymentOptions.layer, Payments.layer).pipe(
    Layer.provide(catalogOf([usdc])),
    Layer.provideMerge(layerTestDataCollection({ records, check, pageUrl: page, thresholds: { [lowPartnerId]: "10.00" } })),
    Layer.provideMerge(Payments.layer),
    Layer.provide([
      pricesOf({ [`USD ${usdc.assetId}`]: { _tag: "Peg" } }),
      layerMemoryQuotes(),
      layerMemorySettlements(),
      recordedActions,
      screeningList([sanctioned]),
      OptionIds.layer(new Uint8Array(32).fill(3)).pipe(Layer.provide(Mac.layerWebCrypto))
    ]),
    Layer.provide(IdGenerator.layer),
    Layer.provide([layerMemory(), twoMerchants]),
    Layer.provideMerge(seededSecureRandom(5))
  )

const paymentOf = (value: string, partner: PartnerId = partnerId, merchant: MerchantId = merchantId) =>
  Payments.use((p) => p.create({ partnerId: partner, merchantId: merchant, mode: "sandbox", amount: { unit: "iso4217/USD", value }, referenceId: "dc" }))
const formsOf = (paymentId: string, accounts: ReadonlyArray<string>) =>
  Effect.map(PaymentOptions.use((o) => o.options(access, paymentId, accounts, [])), ({ options }) =>
    Object.fromEntries(options.map((o) => [o.account, o.collectData])))
const submit = (paymentId: string, account: string, data: Record<string, unknown>) =>
  DataCollection.use((d) => d.submit(access, paymentId, account, data))
const codeOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed(errorCode(e as never))))
const messageOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed((e as { message: string }).message)))

describe("DataCollection", () => {
  it.effect("asks for data at or above the threshold (default 1000.00), per account, with the page's URL", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const below = yield* paymentOf("99999")
      assert.deepStrictEqual(yield* formsOf(below.id, [alice]), { [alice]: null })
      const at = yield* paymentOf("100000")
      const forms = yield* formsOf(at.id, [alice, bob])
      const form = forms[alice]!
      assert.strictEqual(form.url, `${page}?paymentId=${at.id}&account=${encodeURIComponent(alice)}`)
      assert.strictEqual(forms[bob]!.url, `${page}?paymentId=${at.id}&account=${encodeURIComponent(bob)}`)
      assert.strictEqual(form.schema.$schema, "https://json-schema.org/draft/2020-12/schema")
      assert.deepStrictEqual(form.fields.map((f) => f.id), ["fullName", "dob", "pobCountry", "pobAddress", "porCountry", "porAddress", "tosConfirmed"])
    }).pipe(Effect.provide(layer(new Map()))))

  it.effect("uses the partner's own threshold when it set one", () =>
    Effect.gen(function*() {
      const payment = yield* paymentOf("1000", lowPartnerId, lowMerchantId)
      assert.isNotNull((yield* formsOf(payment.id, [alice]))[alice])
      const smaller = yield* paymentOf("999", lowPartnerId, lowMerchantId)
      assert.isNull((yield* formsOf(smaller.id, [alice]))[alice])
    }).pipe(Effect.provide(layer(new Map()))))

  it.effect("stores valid data of one account, which then needs nothing more; other accounts still do", () => {
    const records: MemoryBuyerData = new Map()
    return Effect.gen(function*() {
      const payment = yield* paymentOf("250000")
      yield* submit(payment.id, alice, valid)
      assert.deepStrictEqual([...records.keys()], [`${payment.id} ${alice}`])
      assert.deepStrictEqual(Redacted.value(records.get(`${payment.id} ${alice}`)!), valid)
      const forms = yield* formsOf(payment.id, [alice, bob])
      assert.isNull(forms[alice])
      assert.isNotNull(forms[bob])
      // The account is normalized like options do (EIP-55).
      yield* submit(payment.id, `eip155:8453:${bob.slice("eip155:8453:".length).toLowerCase()}`, { ...valid, fullName: "Bob" })
      assert.isNull((yield* formsOf(payment.id, [bob]))[bob])
      // A later submission replaces the earlier one.
      yield* submit(payment.id, alice, { ...valid, fullName: "Ada King" })
      assert.strictEqual(Redacted.value(records.get(`${payment.id} ${alice}`)!).fullName, "Ada King")
    }).pipe(Effect.provide(layer(records)))
  })

  it.effect("refuses invalid data naming the fields, and stores nothing", () => {
    const records: MemoryBuyerData = new Map()
    return Effect.gen(function*() {
      const payment = yield* paymentOf("100000")
      const message = yield* messageOf(submit(payment.id, alice, { dob: "1815-12-10" }))
      assert.strictEqual(message, "Buyer data is invalid: fullName is required; tosConfirmed must be true.")
      assert.strictEqual(yield* codeOf(submit(payment.id, alice, { fullName: "Ada" })), "params_validation")
      assert.strictEqual(records.size, 0)
    }).pipe(Effect.provide(layer(records)))
  })

  it.effect("submissions: only for a waiting payment that needs data, from a valid account that may pay", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const payment = yield* paymentOf("100000")
      assert.strictEqual(yield* codeOf(submit(payment.id, "not-caip", valid)), "params_validation")
      assert.strictEqual(yield* codeOf(submit("pay_missing", alice, valid)), "payment_not_found")
      assert.strictEqual(yield* codeOf(submit(payment.id, sanctioned, valid)), "sanctioned_user")
      const small = yield* paymentOf("1050")
      assert.strictEqual(yield* messageOf(submit(small.id, alice, valid)), "This payment does not collect buyer data.")
      const cancelled = yield* paymentOf("100000")
      yield* Payments.use((p) => p.cancel(access, cancelled.id, "cancelled_by_user"))
      assert.strictEqual(yield* codeOf(submit(cancelled.id, alice, valid)), "invalid_state")
      yield* TestClock.adjust("15 minutes")
      assert.strictEqual(yield* codeOf(submit(payment.id, alice, valid)), "payment_expired")
      // Another mode's payment does not exist for this caller.
      assert.strictEqual(yield* codeOf(DataCollection.use((d) => d.submit({ mode: "live" }, small.id, alice, valid))), "payment_not_found")
    }).pipe(Effect.provide(layer(new Map()))))

  it.effect("confirm's check: passes without data below the threshold, else needs stored or collected data", () => {
    const records: MemoryBuyerData = new Map()
    return Effect.gen(function*() {
      const ensure = (payment: Parameters<DataCollection["Service"]["ensureProvided"]>[0], account: string, fields: ReadonlyArray<{ id: string; value: string }> | null) =>
        DataCollection.use((d) => d.ensureProvided(payment, account, fields === null ? null : { fields }))
      const small = yield* paymentOf("1050")
      assert.strictEqual(yield* codeOf(ensure(small, alice, null)), "ok")
      assert.strictEqual(records.size, 0)

      const large = yield* paymentOf("100000")
      assert.match(yield* messageOf(ensure(large, alice, null)), /^Buyer data is required for this payment: /)
      assert.strictEqual(yield* messageOf(ensure(large, alice, [{ id: "tosConfirmed", value: "true" }])), "Buyer data is invalid: fullName is required.")
      assert.strictEqual(
        yield* messageOf(ensure(large, alice, [{ id: "fullName", value: "A" }, { id: "fullName", value: "B" }])),
        "collectedData.fields lists fullName more than once."
      )
      assert.strictEqual(records.size, 0)
      // Valid collected data passes and is stored (booleans arrive as strings).
      const fields = [{ id: "fullName", value: "Ada Lovelace" }, { id: "tosConfirmed", value: "true" }]
      assert.strictEqual(yield* codeOf(ensure(large, alice, fields)), "ok")
      assert.deepStrictEqual(Redacted.value(records.get(`${large.id} ${alice}`)!), { fullName: "Ada Lovelace", tosConfirmed: true })
      // From then on the account needs nothing more; another account still does.
      assert.strictEqual(yield* codeOf(ensure(large, alice, null)), "ok")
      assert.strictEqual(yield* codeOf(ensure(large, bob, null)), "params_validation")
      // Data submitted on the page counts the same.
      yield* submit(large.id, bob, valid)
      assert.strictEqual(yield* codeOf(ensure(large, bob, null)), "ok")
    }).pipe(Effect.provide(layer(records)))
  })
})
