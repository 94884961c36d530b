import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { OptionIds } from "../../src/gateway/OptionId.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId } from "../../src/ids/Ids.ts"
import { Merchant } from "../../src/merchant/Merchant.ts"
import { DepositChains } from "../../src/ports/DepositChains.ts"
import { type DepositAddress, DepositStore } from "../../src/ports/DepositStore.ts"
import { ReceiptStore } from "../../src/ports/ReceiptStore.ts"
import { layerTestDataCollection } from "../../src/testing/DataCollectionPorts.ts"
import { catalogOf, layerMemoryQuotes, pricesOf } from "../../src/testing/GatewayPorts.ts"
import { layerMemoryMerchants, makeMemoryMerchants } from "../../src/testing/MemoryMerchantRepository.ts"
import { layerMemory } from "../../src/testing/MemoryStore.ts"
import { screeningList, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import type { Access } from "../../src/usecases/Access.ts"
import { DepositOptions } from "../../src/usecases/DepositOptions.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { usdcOnBase as usdc } from "./GatewayFixtures.ts"

const partnerId = "ptn_dep" as PartnerId
const lowPartnerId = "ptn_deplow" as PartnerId
const merchantId = "mer_dep" as MerchantId
const lowMerchantId = "mer_deplow" as MerchantId
const access: Access = { mode: "sandbox" }
const depositAddress = "0x00000000000000000000000000000000DeAD0001"

// One merchant of a partner on the default threshold (1000.00), one of a partner with 10.00.
const twoMerchants = Layer.unwrap(Effect.sync(() => {
  const store = makeMemoryMerchants()
  for (const [id, partner] of [[merchantId, partnerId], [lowMerchantId, lowPartnerId]] as const) {
    store.merchants.set(id, new Merchant({ id, partnerId: partner, mode: "sandbox", name: id, email: null, iconUrl: null, deleted: false, createdAt: 0, updatedAt: 0 }))
  }
  return layerMemoryMerchants(store)
}))

/** The use case over memory ports; `ensured` collects the deposit addresses it records for the watcher. */
const layer = (ensured: Array<DepositAddress>, chains: ReadonlyArray<string> = [usdc.chainId]) =>
  DepositOptions.layer.pipe(
    Layer.provide([
      catalogOf([usdc]),
      layerMemoryQuotes(),
      pricesOf({ [`USD ${usdc.assetId}`]: { _tag: "Peg" } }),
      OptionIds.layer(new Uint8Array(32).fill(4)).pipe(Layer.provide(Mac.layerWebCrypto)),
      Layer.succeed(DepositChains, DepositChains.of({ chains, swept: chains, addressOf: (chainId) => (chains.includes(chainId) ? depositAddress : undefined) })),
      Layer.succeed(DepositStore, DepositStore.of({
        ensure: (deposit) => Effect.sync(() => (ensured.push(deposit), deposit.address)),
        watched: () => Effect.succeed([]),
        markDue: () => Effect.void,
        claim: () => Effect.succeed([]),
        recordSweep: () => Effect.succeed(false),
        swept: () => Effect.void,
        nothingLeft: () => Effect.void,
        abandon: () => Effect.void,
        release: () => Effect.void
      })),
      // Nothing received yet: the whole amount is asked for.
      Layer.succeed(ReceiptStore, ReceiptStore.of({
        record: () => Effect.succeed("recorded"),
        list: () => Effect.succeed([]),
        find: () => Effect.succeed(Option.none()),
        saveRefund: () => Effect.succeed(false),
        claimRefunds: () => Effect.succeed([]),
        releaseRefund: () => Effect.void,
        quarantine: () => Effect.succeed(false),
        quarantined: () => Effect.succeed([]),
        resolveQuarantine: () => Effect.void,
        onChainIn: () => Effect.succeed([]),
        reverse: () => Effect.succeed("duplicate")
      }))
    ]),
    Layer.provideMerge(layerTestDataCollection({ thresholds: { [lowPartnerId]: "10.00" } })),
    Layer.provideMerge(Payments.layer),
    Layer.provide(screeningList([])),
    Layer.provide(IdGenerator.layer),
    Layer.provide([layerMemory(), twoMerchants]),
    Layer.provide(seededSecureRandom(7))
  )

const paymentOf = (value: string, partner: PartnerId = partnerId, merchant: MerchantId = merchantId) =>
  Payments.use((p) => p.create({ partnerId: partner, merchantId: merchant, mode: "sandbox", amount: { unit: "iso4217/USD", value }, referenceId: "dep" }))

const depositOf = (paymentId: string) => DepositOptions.use((d) => d.deposit(access, paymentId))
const availabilityOf = (paymentId: string) =>
  Effect.gen(function*() {
    const payment = yield* Payments.use((p) => p.find(access, paymentId))
    return yield* DepositOptions.use((d) => d.availability(payment))
  })

describe("DepositOptions", () => {
  it.effect("offers the payment's deposit address below the data collection threshold, and records it for the watcher", () => {
    const ensured: Array<DepositAddress> = []
    return Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const payment = yield* paymentOf("99999")
      assert.strictEqual(yield* availabilityOf(payment.id), "offered")
      const options = yield* depositOf(payment.id)
      assert.deepStrictEqual(options.map((o) => [o.address, o.amount.value]), [[depositAddress, "999990000"]])
      assert.deepStrictEqual(ensured.map((d) => [d.paymentId, d.address]), [[payment.id, depositAddress.toLowerCase()]])
    }).pipe(Effect.provide(layer(ensured)))
  })

  it.effect("a payment that requires buyer data (at or above the threshold) gets no deposit option and no address", () => {
    const ensured: Array<DepositAddress> = []
    return Effect.gen(function*() {
      const at = yield* paymentOf("100000")
      assert.strictEqual(yield* availabilityOf(at.id), "needsData")
      assert.deepStrictEqual(yield* depositOf(at.id), [])
      const above = yield* paymentOf("2500000")
      assert.deepStrictEqual(yield* depositOf(above.id), [])
      // The partner's own threshold counts: 12.50 reaches 10.00.
      const low = yield* paymentOf("1250", lowPartnerId, lowMerchantId)
      assert.strictEqual(yield* availabilityOf(low.id), "needsData")
      assert.deepStrictEqual(yield* depositOf(low.id), [])
      const lower = yield* paymentOf("999", lowPartnerId, lowMerchantId)
      assert.strictEqual((yield* depositOf(lower.id)).length, 1)
      // Only the payment that may be paid this way has an address the watcher follows.
      assert.deepStrictEqual(ensured.map((d) => d.paymentId), [lower.id])
    }).pipe(Effect.provide(layer(ensured)))
  })

  it.effect("without a chain with a deposit factory, nothing is offered", () => {
    const ensured: Array<DepositAddress> = []
    return Effect.gen(function*() {
      const payment = yield* paymentOf("1250")
      assert.strictEqual(yield* availabilityOf(payment.id), "none")
      assert.deepStrictEqual(yield* depositOf(payment.id), [])
      assert.deepStrictEqual(ensured, [])
    }).pipe(Effect.provide(layer(ensured, [])))
  })
})
