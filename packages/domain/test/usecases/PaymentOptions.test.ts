import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import { OptionIds } from "../../src/gateway/OptionId.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId } from "../../src/ids/Ids.ts"
import { Rate } from "../../src/money/Rate.ts"
import type { PayableAsset } from "../../src/ports/AssetCatalog.ts"
import { layerTestDataCollection } from "../../src/testing/DataCollectionPorts.ts"
import { catalogOf, layerMemoryQuotes, pricesOf, recordedActions } from "../../src/testing/GatewayPorts.ts"
import { layerMemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { layerMemory } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, screeningList, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import type { Access } from "../../src/usecases/Access.ts"
import { PaymentOptions } from "../../src/usecases/PaymentOptions.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { usdcOnBase as usdc } from "./GatewayFixtures.ts"

const partnerId = "ptn_opt" as PartnerId
const merchantId = "mer_opt" as MerchantId
const access: Access = { mode: "sandbox" }
const start = 1_800_000_000_000

const weth: PayableAsset = { ...usdc, assetId: "eip155:8453/erc20:0x4200000000000000000000000000000000000006", decimals: 18, symbol: "WETH", name: "Wrapped Ether", kind: "push" }
const unpriced: PayableAsset = { ...usdc, assetId: "eip155:8453/erc20:0x0000000000000000000000000000000000000bad", symbol: "BAD" }
const buyer = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const otherChain = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const sanctioned = "eip155:8453:0x000000000000000000000000000000000000dEaD"

const layer = () =>
  Layer.mergeAll(PaymentOptions.layer, Payments.layer).pipe(
    Layer.provide(layerTestDataCollection()),
    Layer.provideMerge(Payments.layer),
    Layer.provide([
      catalogOf([usdc, weth, unpriced]),
      pricesOf({ [`USD ${usdc.assetId}`]: { _tag: "Peg" }, [`USD ${weth.assetId}`]: { _tag: "Rate", rate: new Rate({ numerator: 1n, denominator: 3000n }) } }),
      layerMemoryQuotes(),
      layerMemorySettlements(),
      recordedActions,
      screeningList([sanctioned]),
      OptionIds.layer(new Uint8Array(32).fill(3)).pipe(Layer.provide(Mac.layerWebCrypto))
    ]),
    Layer.provide(IdGenerator.layer),
    Layer.provide([layerMemory(), oneMerchant(partnerId, merchantId)]),
    Layer.provideMerge(seededSecureRandom(11))
  )

const newPayment = Payments.use((p) =>
  p.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "o" })
)
const optionsFor = (paymentId: string, accounts: ReadonlyArray<string>, refresh: ReadonlyArray<string> = []) =>
  PaymentOptions.use((o) => o.options(access, paymentId, accounts, refresh))
const codeOf = <A, E>(effect: Effect.Effect<A, E, PaymentOptions>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed(errorCode(e as never))))

describe("PaymentOptions", () => {
  it.effect("offers one option per priceable asset on each account's chain", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const payment = yield* newPayment
      const { options } = yield* optionsFor(payment.id, [buyer, otherChain])
      assert.deepStrictEqual(options.map((o) => [o.account, o.amount.display.assetSymbol]), [[buyer, "USDC"], [buyer, "WETH"]])
      const [pegged, rated] = options
      assert.strictEqual(pegged!.amount.unit, `caip19/${usdc.assetId}`)
      assert.strictEqual(pegged!.amount.value, "10500000")
      assert.isNull(pegged!.expiresAt)
      // 10.50 USD at 3000 USD/WETH, rounded up in the merchant's favour.
      assert.strictEqual(rated!.amount.value, "3500000000000000")
      assert.strictEqual(rated!.expiresAt, start / 1000 + 300)
      const built = (o: typeof pegged) => {
        const action = o!.actions[0]!
        return action.type === "build" ? JSON.parse(action.data.data) : undefined
      }
      assert.deepStrictEqual(built(pegged), { optionId: pegged!.id, kind: "pull", validBefore: payment.expiresAt })
      assert.deepStrictEqual(built(rated), { optionId: rated!.id, kind: "push", validBefore: start / 1000 + 300 })
    }).pipe(Effect.provide(layer())))

  it.effect("keeps option ids while quotes are valid, and re-quotes refreshed or stale ones", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const payment = yield* newPayment
      const first = (yield* optionsFor(payment.id, [buyer])).options
      const again = (yield* optionsFor(payment.id, [buyer])).options
      assert.deepStrictEqual(again.map((o) => o.id), first.map((o) => o.id))
      const refreshed = (yield* optionsFor(payment.id, [buyer], [first[1]!.id])).options
      assert.strictEqual(refreshed[0]!.id, first[0]!.id)
      assert.notStrictEqual(refreshed[1]!.id, first[1]!.id)
      yield* TestClock.adjust("301 seconds")
      const later = (yield* optionsFor(payment.id, [buyer])).options
      assert.strictEqual(later[0]!.id, first[0]!.id)
      assert.notStrictEqual(later[1]!.id, refreshed[1]!.id)
      assert.strictEqual(later[1]!.expiresAt, start / 1000 + 301 + 300)
    }).pipe(Effect.provide(layer())))

  it.effect("validates accounts and refresh ids", () =>
    Effect.gen(function*() {
      const payment = yield* newPayment
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, [])), "params_validation")
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, Array.from({ length: 21 }, () => buyer))), "params_validation")
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, Array.from({ length: 20 }, () => buyer))), "ok")
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, ["not-caip"])), "params_validation")
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, ["eip155:8453:0x70997970c51812dc3a010c7d01b50e0d17dc79C8"])), "params_validation")
      assert.strictEqual(yield* codeOf(optionsFor(payment.id, [buyer], ["opt1.forged.tag"])), "invalid_params")
      assert.strictEqual(yield* codeOf(optionsFor("pay_missing", [buyer])), "payment_not_found")
    }).pipe(Effect.provide(layer())))

  it.effect("answers only while the payment waits, and never to sanctioned accounts", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const cancelled = yield* newPayment
      yield* Payments.use((p) => p.cancel(access, cancelled.id, "cancelled_by_user"))
      assert.strictEqual(yield* codeOf(optionsFor(cancelled.id, [buyer])), "invalid_state")
      const waiting = yield* newPayment
      assert.strictEqual(yield* codeOf(optionsFor(waiting.id, [buyer, sanctioned])), "sanctioned_user")
      yield* TestClock.adjust("15 minutes")
      assert.strictEqual(yield* codeOf(optionsFor(waiting.id, [buyer])), "payment_expired")
    }).pipe(Effect.provide(layer())))
})
