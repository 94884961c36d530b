import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { OptionIds } from "../../src/gateway/OptionId.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, SettlementId } from "../../src/ids/Ids.ts"
import { CryptoSettlement } from "../../src/merchant/CryptoSettlement.ts"
import type { PayableAsset } from "../../src/ports/AssetCatalog.ts"
import { layerTestDataCollection } from "../../src/testing/DataCollectionPorts.ts"
import { catalogOf, layerMemoryQuotes, pricesOf, recordedActions } from "../../src/testing/GatewayPorts.ts"
import { layerMemorySettlements, makeMemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { layerMemory } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, screeningList, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { CheckoutAmounts } from "../../src/usecases/CheckoutAmounts.ts"
import { PaymentOptions } from "../../src/usecases/PaymentOptions.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { usdcOnBase } from "./GatewayFixtures.ts"

const partnerId = "ptn_held" as PartnerId
const merchantId = "mer_held" as MerchantId
const start = 1_800_000_000_000
const escrow = "0x00000000000000000000000000000000000e5c20"
const buyer = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const receiver = "0x0000000000000000000000000000000000000abc"

// USDC can be held (EIP-3009, an escrow on its chain); EURC has no destination of the merchant; USDT is pulled through Permit2.
const usdc: PayableAsset = { ...usdcOnBase, escrowAddress: escrow }
const eurc: PayableAsset = { ...usdc, assetId: "eip155:8453/erc20:0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42", symbol: "EURC" }
const usdt: PayableAsset = { ...usdcOnBase, assetId: "eip155:8453/erc20:0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2", symbol: "USDT", permit2: true }

const layer = () => {
  const settlements = makeMemorySettlements()
  settlements.settlements.set("stl_1" as SettlementId, new CryptoSettlement({
    id: "stl_1" as SettlementId, merchantId, asset: usdc.assetId, destination: `eip155:8453:${receiver}`, createdAt: 0, updatedAt: 0, usableFrom: 0
  }))
  return Layer.mergeAll(PaymentOptions.layer, CheckoutAmounts.layer, Payments.layer).pipe(
    Layer.provide(layerTestDataCollection()),
    Layer.provideMerge(Payments.layer),
    Layer.provide([
      catalogOf([usdc, eurc, usdt]),
      pricesOf({ [`USD ${usdc.assetId}`]: { _tag: "Peg" }, [`USD ${eurc.assetId}`]: { _tag: "Peg" }, [`USD ${usdt.assetId}`]: { _tag: "Peg" } }),
      layerMemoryQuotes(),
      layerMemorySettlements(settlements),
      recordedActions,
      screeningList([])
    ]),
    Layer.provideMerge(OptionIds.layer(new Uint8Array(32).fill(3)).pipe(Layer.provide(Mac.layerWebCrypto))),
    Layer.provide(IdGenerator.layer),
    Layer.provide([layerMemory(), oneMerchant(partnerId, merchantId)]),
    Layer.provideMerge(seededSecureRandom(7))
  )
}

const create = (held: boolean) =>
  Payments.use((p) =>
    p.create({
      partnerId,
      merchantId,
      mode: "sandbox",
      amount: { unit: "iso4217/USD", value: "1000" },
      referenceId: "o",
      ...(held ? { capture: { method: "manual" as const, windowSeconds: 3_600 } } : {})
    }))

describe("A held payment's options", () => {
  it.effect("only tokens the escrow can hold, for the merchant's destination, with the escrow terms sealed in the option", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const held = yield* create(true)
      const { options } = yield* PaymentOptions.use((o) => o.options({ mode: "sandbox" }, held.id, [buyer], []))
      assert.deepStrictEqual(options.map((o) => o.amount.unit), [`caip19/${usdc.assetId}`])
      const claims = yield* OptionIds.use((ids) => ids.read(options[0]!.id))
      assert.deepStrictEqual(claims.escrow, { receiver, captureBefore: held.hold!.captureBefore, refundBefore: held.hold!.refundBefore })
      const estimates = yield* CheckoutAmounts.use((a) => a.estimate(held, ["eip155:8453"]))
      assert.deepStrictEqual(estimates.map((e) => e.amount.display.assetSymbol), ["USDC"], "estimates name what the options offer")

      const plain = yield* create(false)
      const all = yield* PaymentOptions.use((o) => o.options({ mode: "sandbox" }, plain.id, [buyer], []))
      assert.deepStrictEqual(all.options.map((o) => o.amount.display.assetSymbol), ["USDC", "EURC", "USDT"])
      assert.isUndefined((yield* OptionIds.use((ids) => ids.read(all.options[0]!.id))).escrow)
      assert.strictEqual((yield* CheckoutAmounts.use((a) => a.estimate(plain, ["eip155:8453"]))).length, 3)
    }).pipe(Effect.provide(layer())))
})
