import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type DomainError, errorCode } from "../../src/errors/DomainErrors.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { PartnerId } from "../../src/ids/Ids.ts"
import { CryptoSettlement } from "../../src/merchant/CryptoSettlement.ts"
import { SettlementDelay } from "../../src/merchant/SettlementDelay.ts"
import { AssetCatalog } from "../../src/ports/AssetCatalog.ts"
import type { MerchantRepository } from "../../src/ports/MerchantRepository.ts"
import { SettlementRepository } from "../../src/ports/SettlementRepository.ts"
import { layerMemoryMerchants, makeMemoryMerchants } from "../../src/testing/MemoryMerchantRepository.ts"
import { layerMemorySettlements, makeMemorySettlements, type MemorySettlements } from "../../src/testing/MemorySettlementRepository.ts"
import { seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { Merchants, type PartnerAccess } from "../../src/usecases/Merchants.ts"
import { type SettlementEntry, Settlements } from "../../src/usecases/Settlements.ts"

const access: PartnerAccess = { partnerId: "ptn_one" as PartnerId, mode: "sandbox" }
const otherPartner: PartnerAccess = { partnerId: "ptn_two" as PartnerId, mode: "sandbox" }
const otherMode: PartnerAccess = { partnerId: "ptn_one" as PartnerId, mode: "live" }

// Canonical (EIP-55) forms and the lower-case spellings clients may send.
const usdcMainnet = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const daiMainnet = "eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0F"
const usdcBase = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const payoutMainnet = "eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb"
const payoutBase = "eip155:8453:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb"
const otherPayoutMainnet = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

// The service collects mainnet USDC at this address: no settlement may be sent there.
const collectionMainnet = "0x000000000000000000000000000000000000C011"
const catalog = Layer.succeed(AssetCatalog, AssetCatalog.of({
  all: [{
    assetId: usdcMainnet,
    chainId: "eip155:1",
    decimals: 6,
    symbol: "USDC",
    name: "USD Coin",
    iconUrl: null,
    networkName: "Ethereum",
    networkIconUrl: null,
    kind: "pull",
    etaSeconds: 30,
    collectionAddress: collectionMainnet
  }],
  assetsOn: () => [],
  asset: () => undefined
}))

type Services = Merchants | Settlements | SettlementRepository | MerchantRepository

// A fresh store per test; the settlement state is handed to the test body.
const provide = <A, E>(
  body: (store: MemorySettlements) => Effect.Effect<A, E, Services>,
  delay: Layer.Layer<never> = Layer.empty
) => {
  const store = makeMemorySettlements()
  return Effect.provide(
    body(store),
    Layer.mergeAll(Merchants.layer, Settlements.layer).pipe(
      Layer.provide(delay),
      Layer.provideMerge(Layer.mergeAll(layerMemoryMerchants(makeMemoryMerchants()), layerMemorySettlements(store))),
      Layer.provide(IdGenerator.layer),
      Layer.provide(catalog),
      Layer.provide(seededSecureRandom(5))
    )
  )
}

const code = <A, E extends DomainError, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed<string>(errorCode(e))))

const newMerchant = (as: PartnerAccess = access) =>
  Merchants.use((m) => m.create(as, { merchantName: "Coffee Shop" })).pipe(Effect.map((m) => m.id))
const register = (merchantId: string, entries: ReadonlyArray<SettlementEntry>, as: PartnerAccess = access) =>
  Settlements.use((s) => s.register(as, merchantId, entries))
const list = (merchantId: string, as: PartnerAccess = access) => Settlements.use((s) => s.list(as, merchantId))
const pairs = (settlements: ReadonlyArray<CryptoSettlement>) => settlements.map((s) => [s.asset, s.destination])

describe("Settlements.register", () => {
  it.effect("stores every entry in canonical form", () =>
    provide(() =>
      Effect.gen(function*() {
        yield* TestClock.setTime(1_800_000_000_000)
        const merchantId = yield* newMerchant()
        const made = yield* register(merchantId, [
          { asset: usdcMainnet.toLowerCase(), destination: payoutMainnet.toLowerCase() },
          { asset: usdcBase, destination: payoutBase }
        ])
        assert.deepStrictEqual(pairs(made), [[usdcMainnet, payoutMainnet], [usdcBase, payoutBase]])
        for (const s of made) {
          assert.match(s.id, /^stl_[0-9A-Z]{26}$/)
          assert.strictEqual(s.merchantId, merchantId)
          assert.strictEqual(s.createdAt, 1_800_000_000_000)
          assert.strictEqual(s.updatedAt, 1_800_000_000_000)
        }
        // Rows of one request share a timestamp, so the list orders them by id.
        assert.deepStrictEqual([...(yield* list(merchantId))], [...made].sort((a, b) => (a.id < b.id ? -1 : 1)))
      })))

  it.effect("takes 1 to 50 entries", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const entry = (i: number) => ({ asset: `eip155:${i + 1}/slip44:60`, destination: `eip155:${i + 1}:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb` })
        assert.strictEqual(yield* code(register(merchantId, [])), "params_validation")
        assert.strictEqual(yield* code(register(merchantId, Array.from({ length: 51 }, (_, i) => entry(i)))), "params_validation")
        assert.strictEqual((yield* list(merchantId)).length, 0)
        assert.strictEqual((yield* register(merchantId, Array.from({ length: 50 }, (_, i) => entry(i)))).length, 50)
      })))

  it.effect("names the entry whose asset or destination is invalid", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const message = (entries: ReadonlyArray<SettlementEntry>) =>
          register(merchantId, entries).pipe(Effect.flip, Effect.map((e) => [e._tag, e.message]))
        const good = { asset: usdcMainnet, destination: payoutMainnet }
        const [tag1, asset] = yield* message([good, { asset: "eip155:1/erc20:0x1234", destination: payoutMainnet }])
        assert.strictEqual(tag1, "ParamsValidation")
        assert.match(asset!, /^settlements\[1\]\.asset is not a CAIP-19 asset id/)
        const [tag2, destination] = yield* message([{ asset: usdcMainnet, destination: "eip155:1" }])
        assert.strictEqual(tag2, "ParamsValidation")
        assert.match(destination!, /^settlements\[0\]\.destination is not a CAIP-10 account id/)
        const [tag3, chain] = yield* message([good, { asset: usdcBase, destination: payoutMainnet }])
        assert.strictEqual(tag3, "ParamsValidation")
        assert.strictEqual(chain, "settlements[1].destination is not on the chain of settlements[1].asset.")
        assert.strictEqual(yield* code(register(merchantId, [{ asset: "nope", destination: "nope" }])), "params_validation")
        assert.strictEqual((yield* list(merchantId)).length, 0)
      })))

  it.effect("refuses a destination no payout may go to: the zero address, the service's collection address, a token contract", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const message = (destination: string) =>
          register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }, { asset: daiMainnet, destination }]).pipe(
            Effect.flip,
            Effect.map((e) => `${e._tag}: ${e.message}`)
          )
        assert.strictEqual(
          yield* message(`eip155:1:0x${"0".repeat(40)}`),
          "ParamsValidation: settlements[1].destination is the zero address: nothing sent there can ever be spent."
        )
        // Any spelling of the collection address: a settlement there would pay nobody and be counted paid.
        assert.strictEqual(
          yield* message(`eip155:1:${collectionMainnet.toLowerCase()}`),
          "ParamsValidation: settlements[1].destination is this service's own collection address: a settlement sent there would reach no merchant."
        )
        assert.strictEqual(
          yield* message(`eip155:1:${usdcMainnet.slice(usdcMainnet.lastIndexOf(":") + 1)}`),
          "ParamsValidation: settlements[1].destination is a token contract: tokens sent there are lost."
        )
        assert.strictEqual((yield* list(merchantId)).length, 0)
      })))

  it.effect("refuses an asset named twice in one request, however it is spelled", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const error = yield* Effect.flip(register(merchantId, [
          { asset: usdcMainnet, destination: payoutMainnet },
          { asset: daiMainnet, destination: payoutMainnet },
          { asset: usdcMainnet.toLowerCase(), destination: otherPayoutMainnet }
        ]))
        assert.strictEqual(error._tag, "InvalidState")
        assert.strictEqual(error.message, "settlements[2].asset repeats settlements[0].asset.")
        assert.strictEqual((yield* list(merchantId)).length, 0)
      })))

  it.effect("is all-or-nothing when an asset already has a destination", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [existing] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        const error = yield* Effect.flip(register(merchantId, [
          { asset: daiMainnet, destination: payoutMainnet },
          { asset: usdcMainnet, destination: otherPayoutMainnet }
        ]))
        assert.strictEqual(error._tag, "InvalidState")
        assert.include(error.message, "settlements[1].asset")
        assert.deepStrictEqual(yield* list(merchantId), [existing!])
        // Another merchant may use the same asset.
        assert.strictEqual(yield* code(register(yield* newMerchant(otherPartner), [{ asset: usdcMainnet, destination: payoutMainnet }], otherPartner)), "ok")
      })))

  it.effect("store: insertAll writes nothing when one row clashes (the race behind the use case's check)", () =>
    provide((store) =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [existing] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        const repo = yield* SettlementRepository
        const row = (id: string, asset: string) =>
          new CryptoSettlement({ id: id as CryptoSettlement["id"], merchantId: existing!.merchantId, asset, destination: payoutMainnet, createdAt: 0, updatedAt: 0, usableFrom: 0 })
        assert.strictEqual(yield* code(repo.insertAll([row("stl_a", daiMainnet), row("stl_b", usdcMainnet)], [])), "invalid_state")
        assert.strictEqual(yield* code(repo.insertAll([row("stl_c", daiMainnet), row("stl_d", daiMainnet)], [])), "invalid_state")
        assert.deepStrictEqual([...store.settlements.keys()], [existing!.id])
      })))

  it.effect("needs an active merchant of the partner and mode", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const entries = [{ asset: usdcMainnet, destination: payoutMainnet }]
        const error = yield* Effect.flip(register("mer_unknown", entries))
        assert.strictEqual(error._tag, "MerchantNotFound")
        assert.strictEqual(error.message, "No merchant mer_unknown.")
        assert.strictEqual(yield* code(register("not-an-id", entries)), "merchant_not_found")
        assert.strictEqual(yield* code(register(merchantId, entries, otherPartner)), "merchant_not_found")
        assert.strictEqual(yield* code(register(merchantId, entries, otherMode)), "merchant_not_found")
        yield* Merchants.use((m) => m.remove(access, merchantId))
        assert.strictEqual(yield* code(register(merchantId, entries)), "merchant_not_found")
        // The request is checked before the merchant is looked up (API rules §1 order).
        assert.strictEqual(yield* code(register("mer_unknown", [])), "params_validation")
      })))
})

describe("Settlements.list", () => {
  it.effect("answers oldest first, for deleted merchants too, never for foreign ones", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [first] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        yield* TestClock.adjust("1 second")
        const [second] = yield* register(merchantId, [{ asset: daiMainnet, destination: payoutMainnet }])
        assert.deepStrictEqual(yield* list(merchantId), [first!, second!])
        assert.deepStrictEqual(yield* list(yield* newMerchant(otherPartner), otherPartner), [])
        assert.strictEqual(yield* code(list(merchantId, otherPartner)), "merchant_not_found")
        assert.strictEqual(yield* code(list(merchantId, otherMode)), "merchant_not_found")
        assert.strictEqual(yield* code(list("mer_unknown")), "merchant_not_found")
        assert.strictEqual(yield* code(list("")), "merchant_not_found")
        yield* Merchants.use((m) => m.remove(access, merchantId))
        assert.deepStrictEqual(yield* list(merchantId), [first!, second!])
      })))
})

describe("Settlements.changeDestination", () => {
  const change = (merchantId: string, id: string, destination: string, as: PartnerAccess = access) =>
    Settlements.use((s) => s.changeDestination(as, merchantId, id, destination))

  it.effect("changes the destination to a canonical account on the asset's chain", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [settlement] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        yield* TestClock.adjust("1 second")
        const changed = yield* change(merchantId, settlement!.id, otherPayoutMainnet.toLowerCase())
        assert.strictEqual(changed.destination, otherPayoutMainnet)
        assert.strictEqual(changed.asset, usdcMainnet)
        assert.strictEqual(changed.createdAt, settlement!.createdAt)
        assert.strictEqual(changed.updatedAt, settlement!.updatedAt + 1000)
        assert.deepStrictEqual(yield* list(merchantId), [changed])
      })))

  it.effect("refuses an invalid account or one on another chain", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [settlement] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        const error = yield* Effect.flip(change(merchantId, settlement!.id, payoutBase))
        assert.strictEqual(error._tag, "ParamsValidation")
        assert.strictEqual(error.message, `destination is not on the chain of the settlement's asset ${usdcMainnet}.`)
        assert.strictEqual(yield* code(change(merchantId, settlement!.id, "eip155:1:0x1234")), "params_validation")
        const own = yield* Effect.flip(change(merchantId, settlement!.id, `eip155:1:${collectionMainnet}`))
        assert.strictEqual(own.message, "destination is this service's own collection address: a settlement sent there would reach no merchant.")
        assert.deepStrictEqual(yield* list(merchantId), [settlement!])
      })))

  it.effect("reports unknown settlements and merchants as merchant_not_found", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const otherMerchant = yield* Merchants.use((m) => m.create(access, { merchantName: "Tea House" }))
        const [settlement] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        const error = yield* Effect.flip(change(merchantId, "stl_unknown", otherPayoutMainnet))
        assert.strictEqual(error._tag, "MerchantNotFound")
        assert.strictEqual(error.message, `No crypto settlement stl_unknown for merchant ${merchantId}.`)
        assert.strictEqual(yield* code(change(merchantId, "stl_!", otherPayoutMainnet)), "merchant_not_found")
        assert.strictEqual(yield* code(change(otherMerchant.id, settlement!.id, otherPayoutMainnet)), "merchant_not_found")
        assert.strictEqual(yield* code(change(merchantId, settlement!.id, otherPayoutMainnet, otherPartner)), "merchant_not_found")
        assert.strictEqual(yield* code(change(merchantId, settlement!.id, otherPayoutMainnet, otherMode)), "merchant_not_found")
        yield* Merchants.use((m) => m.remove(access, merchantId))
        assert.strictEqual(yield* code(change(merchantId, settlement!.id, otherPayoutMainnet)), "merchant_not_found")
      })))
})

describe("Settlements.remove", () => {
  const remove = (merchantId: string, id: string, as: PartnerAccess = access) =>
    Settlements.use((s) => s.remove(as, merchantId, id))

  it.effect("removes a destination, after which the asset can be registered again", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [settlement] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        yield* remove(merchantId, settlement!.id)
        assert.deepStrictEqual(yield* list(merchantId), [])
        const error = yield* Effect.flip(remove(merchantId, settlement!.id))
        assert.strictEqual(error.message, `No crypto settlement ${settlement!.id} for merchant ${merchantId}.`)
        assert.strictEqual(yield* code(register(merchantId, [{ asset: usdcMainnet, destination: otherPayoutMainnet }])), "ok")
      })))

  it.effect("reports unknown settlements and foreign or deleted merchants as merchant_not_found", () =>
    provide(() =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const otherMerchant = yield* Merchants.use((m) => m.create(access, { merchantName: "Tea House" }))
        const [settlement] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        assert.strictEqual(yield* code(remove(merchantId, "stl_unknown")), "merchant_not_found")
        assert.strictEqual(yield* code(remove(merchantId, "garbage")), "merchant_not_found")
        assert.strictEqual(yield* code(remove(otherMerchant.id, settlement!.id)), "merchant_not_found")
        assert.strictEqual(yield* code(remove(merchantId, settlement!.id, otherPartner)), "merchant_not_found")
        assert.strictEqual(yield* code(remove(merchantId, settlement!.id, otherMode)), "merchant_not_found")
        yield* Merchants.use((m) => m.remove(access, merchantId))
        assert.strictEqual(yield* code(remove(merchantId, settlement!.id)), "merchant_not_found")
        assert.deepStrictEqual(yield* list(merchantId), [settlement!])
      })))
})

describe("Settlement destination delay", () => {
  const now = 1_800_000_000_000
  const day = 86_400_000
  const change = (merchantId: string, id: string, destination: string, as: PartnerAccess = access) =>
    Settlements.use((s) => s.changeDestination(as, merchantId, id, destination))

  it.effect("a live destination is usable a day after it is added, a sandbox one at once (the defaults)", () =>
    provide(() =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const live = yield* register(yield* newMerchant(otherMode), [{ asset: usdcMainnet, destination: payoutMainnet }], otherMode)
        const sandbox = yield* register(yield* newMerchant(), [{ asset: usdcMainnet, destination: payoutMainnet }])
        assert.deepStrictEqual([live[0]!.usableFrom, sandbox[0]!.usableFrom], [now + day, now])
      })))

  it.effect("a changed account waits the delay anew; the same account keeps its time", () =>
    provide(
      () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(now)
          const merchantId = yield* newMerchant()
          const [made] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
          assert.strictEqual(made!.usableFrom, now + 60_000)
          yield* TestClock.adjust("2 minutes")
          const same = yield* change(merchantId, made!.id, payoutMainnet.toLowerCase())
          assert.strictEqual(same.usableFrom, now + 60_000, "the same account (however spelled) is no change")
          const moved = yield* change(merchantId, made!.id, otherPayoutMainnet)
          assert.strictEqual(moved.usableFrom, now + 120_000 + 60_000)
          assert.deepStrictEqual((yield* list(merchantId)).map((s) => s.usableFrom), [now + 180_000])
        }),
      Layer.succeed(SettlementDelay, { live: day, sandbox: 60_000 })
    ))
})

describe("Settlement destination events", () => {
  const change = (merchantId: string, id: string, destination: string, as: PartnerAccess = access) =>
    Settlements.use((s) => s.changeDestination(as, merchantId, id, destination))
  const remove = (merchantId: string, id: string, as: PartnerAccess = access) => Settlements.use((s) => s.remove(as, merchantId, id))
  const kinds = (store: MemorySettlements) => store.events.map((e) => [e.change, e.settlement.destination, e.previousDestination])

  it.effect("one event per destination added, changed to another account or removed; none for a no-op or a refusal", () =>
    provide((store) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(1_800_000_000_000)
        const merchantId = yield* newMerchant()
        const [usdc, dai] = yield* register(merchantId, [
          { asset: usdcMainnet, destination: payoutMainnet },
          { asset: daiMainnet, destination: payoutMainnet }
        ])
        assert.deepStrictEqual(kinds(store), [["added", payoutMainnet, null], ["added", payoutMainnet, null]])
        const [added] = store.events
        assert.deepStrictEqual(
          { type: added!.type, partnerId: added!.partnerId, mode: added!.mode, settlement: added!.settlement, createdAt: added!.createdAt },
          { type: "settlement_destination.changed", partnerId: access.partnerId, mode: access.mode, settlement: usdc!, createdAt: 1_800_000_000 }
        )
        // Refused requests and no-ops write nothing.
        assert.strictEqual(yield* code(register(merchantId, [{ asset: usdcMainnet, destination: otherPayoutMainnet }])), "invalid_state")
        assert.strictEqual(yield* code(change(merchantId, usdc!.id, payoutBase)), "params_validation")
        assert.strictEqual(yield* code(change(merchantId, usdc!.id, otherPayoutMainnet, otherPartner)), "merchant_not_found")
        assert.strictEqual(yield* code(remove(merchantId, "stl_unknown")), "merchant_not_found")
        yield* change(merchantId, usdc!.id, payoutMainnet.toLowerCase())
        assert.strictEqual(store.events.length, 2)

        const moved = yield* change(merchantId, usdc!.id, otherPayoutMainnet)
        yield* remove(merchantId, dai!.id)
        assert.deepStrictEqual(kinds(store).slice(2), [["changed", otherPayoutMainnet, payoutMainnet], ["removed", payoutMainnet, null]])
        assert.deepStrictEqual(store.events[2]!.settlement, moved)
        assert.deepStrictEqual(store.events[3]!.settlement, dai!)
        assert.strictEqual(new Set(store.events.map((e) => e.id)).size, 4)
      })))

  it.effect("a change that lost a race reads again: its event names the destination it replaced", () =>
    provide((store) =>
      Effect.gen(function*() {
        const merchantId = yield* newMerchant()
        const [usdc] = yield* register(merchantId, [{ asset: usdcMainnet, destination: payoutMainnet }])
        // Another request changes the destination between this one's read and its write.
        const third = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
        const repo = yield* SettlementRepository
        const racing = Layer.succeed(SettlementRepository, {
          ...repo,
          findById: (merchant, id) =>
            Effect.tap(repo.findById(merchant, id), () =>
              store.settlements.get(usdc!.id)!.destination === payoutMainnet
                ? Effect.sync(() => store.settlements.set(usdc!.id, new CryptoSettlement({ ...usdc!, destination: third })))
                : Effect.void
            )
        })
        const raced = yield* Settlements.use((s) => s.changeDestination(access, merchantId, usdc!.id, otherPayoutMainnet)).pipe(
          Effect.provide(
            Layer.fresh(Settlements.layer).pipe(
              Layer.provide(racing),
              Layer.provide(IdGenerator.layer),
              Layer.provide(catalog),
              Layer.provide(seededSecureRandom(6))
            )
          )
        )
        assert.strictEqual(raced.destination, otherPayoutMainnet)
        assert.deepStrictEqual(kinds(store).slice(1), [["changed", otherPayoutMainnet, third]])
      })))
})
