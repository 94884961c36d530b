import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, SettlementId } from "../../src/ids/Ids.ts"
import { CryptoSettlement } from "../../src/merchant/CryptoSettlement.ts"
import { Rate } from "../../src/money/Rate.ts"
import type { PayableAsset } from "../../src/ports/AssetCatalog.ts"
import { SubscriptionRepository } from "../../src/ports/SubscriptionRepository.ts"
import { Subscription } from "../../src/subscription/Subscription.ts"
import { firstCharge, SubscriptionCharge } from "../../src/subscription/SubscriptionCharge.ts"
import { SubscriptionTokens } from "../../src/subscription/SubscriptionTokens.ts"
import { catalogOf, pricesOf } from "../../src/testing/GatewayPorts.ts"
import { layerMemoryPlans } from "../../src/testing/MemoryPlanRepository.ts"
import { layerMemorySettlements, makeMemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { layerMemorySubscriptionChain } from "../../src/testing/MemorySubscriptionChain.ts"
import { layerMemorySubscriptions, makeMemorySubscriptions } from "../../src/testing/MemorySubscriptionRepository.ts"
import { oneMerchant, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import type { PartnerAccess } from "../../src/usecases/Merchants.ts"
import { Plans } from "../../src/usecases/Plans.ts"
import { Subscriptions } from "../../src/usecases/Subscriptions.ts"
import { usdcOnBase as usdc } from "./GatewayFixtures.ts"

const partnerId = "ptn_sub" as PartnerId
const merchantId = "mer_sub" as MerchantId
const access: PartnerAccess = { partnerId, mode: "sandbox" }
const start = 1_800_000_000_000
const weth: PayableAsset = { ...usdc, assetId: "eip155:8453/erc20:0x4200000000000000000000000000000000000006", decimals: 18, symbol: "WETH", name: "Wrapped Ether" }
const onMainnet: PayableAsset = { ...usdc, assetId: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", chainId: "eip155:1", networkName: "Ethereum" }
const payer = "eip155:8453:0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
const receiver = "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

const layer = () => {
  const settlements = makeMemorySettlements()
  const destination = (asset: PayableAsset, usableFrom: number) =>
    settlements.settlements.set(`stl_${asset.symbol}` as SettlementId, new CryptoSettlement({
      id: `stl_${asset.symbol}` as SettlementId,
      merchantId,
      asset: asset.assetId,
      destination: receiver,
      createdAt: 0,
      updatedAt: 0,
      usableFrom
    }))
  destination(usdc, 0)
  // Changed recently: not usable until its delay passes.
  destination(weth, start + 3_600_000)
  const subscriptions = makeMemorySubscriptions()
  return {
    subscriptions,
    layer: Layer.mergeAll(Plans.layer, Subscriptions.layer).pipe(
      Layer.provide([
        catalogOf([usdc, weth, onMainnet]),
        pricesOf({ [`USD ${usdc.assetId}`]: { _tag: "Peg" }, [`EUR ${usdc.assetId}`]: { _tag: "Rate", rate: new Rate({ numerator: 108n, denominator: 100n }) } }),
        layerMemoryPlans(),
        layerMemorySettlements(settlements),
        layerMemorySubscriptionChain(),
        SubscriptionTokens.layer(new Uint8Array(32).fill(7)).pipe(Layer.provide(Mac.layerWebCrypto)),
        oneMerchant(partnerId, merchantId)
      ]),
      Layer.provideMerge(layerMemorySubscriptions(subscriptions)),
      Layer.provide(IdGenerator.layer),
      Layer.provide(seededSecureRandom(5))
    )
  }
}

const monthly = { merchantId, name: "Pro plan", amount: { unit: `caip19/${usdc.assetId}`, value: "10000000" }, periodSeconds: 30 * 86_400, periods: 12 }
const codeOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed(`${errorCode(e as never)}: ${(e as { message: string }).message}`)))

describe("Plans", () => {
  it.effect("creates a plan in a token or a currency, lists it and deactivates it", () => {
    const { layer: live } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plans = yield* Plans
      const token = yield* plans.create(access, monthly)
      assert.strictEqual(token.unit, `caip19/${usdc.assetId}`)
      assert.strictEqual(token.value, 10_000_000n)
      assert.strictEqual(token.trialSeconds, 0)
      yield* TestClock.adjust("1 second")
      const fiat = yield* plans.create(access, { ...monthly, amount: { unit: "iso4217/EUR", value: "999" }, periods: undefined, trialSeconds: 7 * 86_400 })
      assert.strictEqual(fiat.periods, null)
      const page = yield* plans.list(access, { page: { limit: 1, after: null } })
      assert.deepStrictEqual(page.data.map((p) => p.id), [fiat.id])
      assert.isNotNull(page.nextCursor)
      assert.isFalse((yield* plans.setActive(access, token.id, false)).active)
      // Another partner, or the other mode, sees no such plan.
      assert.match(yield* codeOf(plans.find({ partnerId: "ptn_other" as PartnerId, mode: "sandbox" }, token.id)), /^payment_not_found/)
      assert.match(yield* codeOf(plans.find({ partnerId, mode: "live" }, token.id)), /^payment_not_found/)
    }).pipe(Effect.provide(live))
  })

  it.effect("refuses what a plan cannot be, each with its reason", () => {
    const { layer: live } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plans = yield* Plans
      const refused = (input: Partial<typeof monthly> & Record<string, unknown>) => codeOf(plans.create(access, { ...monthly, ...input }))
      assert.match(yield* refused({ name: " " }), /^params_validation: name must be 1 to 200/)
      assert.match(yield* refused({ name: "a\u0000b" }), /^params_validation/)
      assert.match(yield* refused({ amount: { unit: `caip19/${usdc.assetId}`, value: "0" } }), /base units, above zero/)
      assert.match(yield* refused({ amount: { unit: `caip19/${usdc.assetId}`, value: "1.5" } }), /base units/)
      assert.match(yield* refused({ amount: { unit: `caip19/${usdc.assetId}`, value: (1n << 160n).toString() } }), /base units/)
      assert.match(yield* refused({ amount: { unit: "caip19/eip155:8453/erc20:0x0000000000000000000000000000000000000bad", value: "1" } }), /not a token this service accepts/)
      // A chain without a subscription contract.
      assert.match(yield* refused({ amount: { unit: `caip19/${onMainnet.assetId}`, value: "1" } }), /not available on Ethereum/)
      assert.match(yield* refused({ periodSeconds: 4 }), /periodSeconds must be an integer from 5/)
      // Live plans last at least a day.
      const hourly = { ...monthly, amount: { unit: "iso4217/USD", value: "1000" }, periodSeconds: 3_600 }
      assert.match(yield* codeOf(plans.create({ partnerId, mode: "live" }, hourly)), /^params_validation: periodSeconds .* \(a day to five years\)/)
      // A sandbox token on a live plan.
      assert.match(yield* codeOf(plans.create({ partnerId, mode: "live" }, monthly)), /is not on a real network/)
      assert.match(yield* refused({ periods: 0 }), /periods must be an integer from 1/)
      assert.match(yield* refused({ trialSeconds: -1 }), /trialSeconds/)
      assert.match(yield* refused({ merchantId: "mer_nobody" as MerchantId }), /^merchant_not_found/)
    }).pipe(Effect.provide(live))
  })
})

describe("Subscriptions", () => {
  it.effect("offers sealed terms for the payer's account, and subscribing with them stores one subscription, however often it is sent", () => {
    const { layer: live, subscriptions } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plan = yield* Plans.use((p) => p.create(access, { ...monthly, trialSeconds: 86_400 }))
      const subs = yield* Subscriptions
      const checkout = yield* subs.checkout("sandbox", plan.id)
      // WETH's destination is not usable yet; the plan is in USDC anyway.
      assert.deepStrictEqual(checkout.assets.map((a) => a.symbol), ["USDC"])
      assert.match(yield* codeOf(subs.checkout("live", plan.id)), /^payment_not_found/)

      const offer = yield* subs.offer("sandbox", plan.id, { payer })
      assert.strictEqual(offer.terms.payer, "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
      assert.strictEqual(offer.terms.receiver, receiver)
      assert.strictEqual(offer.terms.amountPerPeriod, 10_000_000n)
      assert.strictEqual(offer.terms.start, start / 1000 + 86_400)
      assert.strictEqual(offer.terms.periods, 12)
      assert.isAbove(offer.sigDeadline, offer.expiresAt)

      const first = yield* subs.subscribe("sandbox", plan.id, { offer: offer.offer, signature: "0xsigned" })
      assert.strictEqual(first.status, "subscribing")
      const again = yield* subs.subscribe("sandbox", plan.id, { offer: offer.offer, signature: "0xsigned" })
      assert.strictEqual(again.id, first.id)
      assert.strictEqual(subscriptions.subscriptions.size, 1)

      // A tampered offer, another plan's, an expired one.
      const [prefix, body, tag] = offer.offer.split(".")
      const tampered = `${prefix}.${body!.slice(0, -2)}AA.${tag}`
      assert.match(yield* codeOf(subs.subscribe("sandbox", plan.id, { offer: tampered, signature: "0x" })), /^invalid_params/)
      const other = yield* Plans.use((p) => p.create(access, monthly))
      assert.match(yield* codeOf(subs.subscribe("sandbox", other.id, { offer: offer.offer, signature: "0x" })), /^invalid_params/)
      const late = yield* subs.offer("sandbox", plan.id, { payer })
      yield* TestClock.adjust("16 minutes")
      assert.match(yield* codeOf(subs.subscribe("sandbox", plan.id, { offer: late.offer, signature: "0x" })), /^quote_expired/)
    }).pipe(Effect.provide(live))
  })

  it.effect("prices a fiat plan in the token at the rate of the offer, and refuses a payer off the token's chain", () => {
    const { layer: live } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plan = yield* Plans.use((p) => p.create(access, { ...monthly, amount: { unit: "iso4217/EUR", value: "1000" } }))
      const subs = yield* Subscriptions
      const offer = yield* subs.offer("sandbox", plan.id, { payer, asset: usdc.assetId })
      // 10.00 EUR at 1.08 USDC per EUR.
      assert.strictEqual(offer.terms.amountPerPeriod, 10_800_000n)
      assert.match(yield* codeOf(subs.offer("sandbox", plan.id, { payer: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8" })), /payer must be an account on eip155:8453/)
      assert.match(yield* codeOf(subs.offer("sandbox", plan.id, { payer: "not an account" })), /^params_validation: payer is not a CAIP-10/)
      assert.match(yield* codeOf(subs.offer("sandbox", plan.id, { payer, asset: weth.assetId })), /asset must be one of/)
      yield* Plans.use((p) => p.setActive(access, plan.id, false))
      assert.match(yield* codeOf(subs.offer("sandbox", plan.id, { payer })), /^invalid_state/)
    }).pipe(Effect.provide(live))
  })

  it.effect("the merchant and the payer's link cancel at once, with one event; an ended subscription cannot be", () => {
    const { layer: live, subscriptions } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plan = yield* Plans.use((p) => p.create(access, monthly))
      const subs = yield* Subscriptions
      const subscribe = Effect.flatMap(subs.offer("sandbox", plan.id, { payer }), (o) => subs.subscribe("sandbox", plan.id, { offer: o.offer, signature: "0x1" }))
      const byMerchant = yield* subscribe
      const cancelled = yield* subs.cancel(access, byMerchant.id)
      assert.strictEqual(cancelled.status, "cancelled")
      assert.strictEqual(cancelled.cancelledBy, "merchant")
      assert.strictEqual((yield* subs.cancel(access, byMerchant.id)).version, cancelled.version)
      assert.deepStrictEqual(subscriptions.events.map((e) => e.type), ["subscription.cancelled"])

      const byPayer = yield* subscribe
      const token = yield* subs.manageToken(byPayer.id)
      assert.match(yield* codeOf(subs.forPayer(byPayer.id, (yield* subs.manageToken(byMerchant.id)))), /^payment_not_found/)
      assert.match(yield* codeOf(subs.cancelByPayer(byPayer.id, "sub1.forged.token")), /^payment_not_found/)
      const view = yield* subs.forPayer(byPayer.id, token)
      assert.strictEqual(view.plan.name, "Pro plan")
      assert.strictEqual((yield* subs.cancelByPayer(byPayer.id, token)).cancelledBy, "payer")

      const ended = yield* subscribe
      const repo = yield* SubscriptionRepository
      yield* repo.commit({ subscription: new Subscription({ ...ended, status: "ended", endedReason: "completed", version: 2 }) })
      assert.match(yield* codeOf(subs.cancel(access, ended.id)), /^invalid_state: The subscription already ended \(completed\)/)
      assert.isTrue(Option.isSome(yield* subs.modeOf(ended.id)))
    }).pipe(Effect.provide(live))
  })

  it.effect("a payer moves to new terms from their next period: the old one charges up to it, the new one from it, never both", () => {
    const { layer: live } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const basic = yield* Plans.use((p) => p.create(access, monthly))
      yield* TestClock.adjust("1 second")
      const pro = yield* Plans.use((p) => p.create(access, { ...monthly, name: "Pro+", amount: { unit: `caip19/${usdc.assetId}`, value: "15000000" }, trialSeconds: 7 * 86_400 }))
      const subs = yield* Subscriptions
      const repo = yield* SubscriptionRepository
      const first = yield* subs.offer("sandbox", basic.id, { payer })
      const old = yield* subs.subscribe("sandbox", basic.id, { offer: first.offer, signature: "0x1" })
      const token = yield* subs.manageToken(old.id)

      // Ten days into its first period: the new terms start at its second, with no trial.
      yield* TestClock.adjust("10 days")
      const move = yield* subs.offer("sandbox", pro.id, { payer, replaces: { subscriptionId: old.id, token } })
      assert.strictEqual(move.terms.start, old.terms.start + 30 * 86_400)
      assert.strictEqual(move.terms.amountPerPeriod, 15_000_000n)
      const moved = yield* subs.subscribe("sandbox", pro.id, { offer: move.offer, signature: "0x2" })
      const after = (yield* repo.findById(old.id)).pipe(Option.getOrThrow)
      assert.strictEqual(after.replacedBy, moved.id)
      assert.strictEqual(after.endPeriod, 1)
      // Sent again, the same offer answers the same subscription and changes nothing.
      assert.strictEqual((yield* subs.subscribe("sandbox", pro.id, { offer: move.offer, signature: "0x2" })).id, moved.id)
      assert.strictEqual((yield* repo.findById(old.id)).pipe(Option.getOrThrow).version, after.version)

      // Replaced once only; only with the link's token, by its payer, to the same merchant.
      assert.match(yield* codeOf(subs.offer("sandbox", pro.id, { payer, replaces: { subscriptionId: old.id, token } })), /already replaced/)
      const other = yield* Effect.flatMap(subs.offer("sandbox", basic.id, { payer }), (o) => subs.subscribe("sandbox", basic.id, { offer: o.offer, signature: "0x3" }))
      const otherToken = yield* subs.manageToken(other.id)
      assert.match(yield* codeOf(subs.offer("sandbox", pro.id, { payer, replaces: { subscriptionId: other.id, token } })), /^params_validation: replaces: no subscription/)
      assert.match(
        yield* codeOf(subs.offer("sandbox", pro.id, { payer: "eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", replaces: { subscriptionId: other.id, token: otherToken } })),
        /payer must be the subscription's payer/
      )

      // The old one charged the period the new one starts with, between the offer and the signature: refused.
      const late = yield* subs.offer("sandbox", pro.id, { payer, replaces: { subscriptionId: other.id, token: otherToken } })
      const endPeriod = (late.terms.start - other.terms.start) / other.terms.periodSeconds
      yield* repo.commit({
        subscription: new Subscription({ ...other, status: "active", version: other.version + 1 }),
        charge: new SubscriptionCharge({ ...firstCharge(other, endPeriod, start), txHash: "0xsent" })
      })
      assert.match(yield* codeOf(subs.subscribe("sandbox", pro.id, { offer: late.offer, signature: "0x4" })), /^quote_expired/)
      assert.isNull((yield* repo.findById(other.id)).pipe(Option.getOrThrow).replacedBy)
    }).pipe(Effect.provide(live))
  })

  it.effect("the merchant pauses and resumes a running subscription, each once with its event; resumed, it charges from its next period", () => {
    const { layer: live, subscriptions } = layer()
    return Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const plan = yield* Plans.use((p) => p.create(access, monthly))
      const subs = yield* Subscriptions
      const repo = yield* SubscriptionRepository
      const signed = yield* Effect.flatMap(subs.offer("sandbox", plan.id, { payer }), (o) => subs.subscribe("sandbox", plan.id, { offer: o.offer, signature: "0x1" }))
      assert.match(yield* codeOf(subs.pause(access, signed.id)), /^invalid_state: The subscription is not active yet/)
      yield* repo.commit({ subscription: new Subscription({ ...signed, status: "active", version: signed.version + 1 }) })

      const paused = yield* subs.pause(access, signed.id)
      assert.strictEqual(paused.status, "paused")
      assert.strictEqual((yield* subs.pause(access, signed.id)).version, paused.version)
      yield* TestClock.adjust("65 days")
      const resumed = yield* subs.resume(access, signed.id)
      assert.strictEqual(resumed.status, "active")
      // 65 days into monthly periods: period 2 runs, so charging goes on from period 3.
      assert.strictEqual(resumed.skipUntil, 3)
      assert.strictEqual((yield* subs.resume(access, signed.id)).version, resumed.version)
      assert.deepStrictEqual(subscriptions.events.map((e) => e.type), ["subscription.paused", "subscription.resumed"])
      assert.match(yield* codeOf(subs.pause({ partnerId: "ptn_other" as PartnerId, mode: "sandbox" }, signed.id)), /^payment_not_found/)
      yield* subs.cancel(access, signed.id)
      assert.match(yield* codeOf(subs.resume(access, signed.id)), /^invalid_state: The subscription already ended/)
    }).pipe(Effect.provide(live))
  })
})
