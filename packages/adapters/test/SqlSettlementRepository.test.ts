import { CryptoSettlement, IdGenerator, type Merchant, SettlementRepository } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner } from "./support/Fixtures.ts"

const usdcBase = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const usdcEth = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const payoutBase = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const payoutEth = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

const settlement = (merchant: Merchant, asset: string, destination: string, createdAt = 1_700_000_000_000) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new CryptoSettlement({ id: yield* ids.make("settlement"), merchantId: merchant.id, asset, destination, createdAt, updatedAt: createdAt, usableFrom: createdAt })
  })

adapterSuite("SqlSettlementRepository", (it) => {
  it.effect("stores all or nothing; a second destination for an asset is invalid_state", () =>
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const base = yield* settlement(merchant, usdcBase, payoutBase, 1000)
      const eth = yield* settlement(merchant, usdcEth, payoutEth, 2000)
      yield* repo.insertAll([base])
      // The batch repeats an asset that already has a destination: nothing of it is written.
      const again = yield* settlement(merchant, usdcBase, payoutBase)
      const error = yield* Effect.flip(repo.insertAll([eth, again]))
      assert.strictEqual(error._tag, "InvalidState")
      assert.include(error.message, usdcBase)
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base])
      // A batch repeating an asset within itself fails as a whole too.
      const eth2 = yield* settlement(merchant, usdcEth, payoutEth)
      assert.strictEqual((yield* Effect.flip(repo.insertAll([eth, eth2])))._tag, "InvalidState")
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base])
      yield* repo.insertAll([eth])
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base, eth])
      yield* repo.insertAll([])
      // Another merchant may use the same asset.
      const other = yield* newMerchant(yield* newPartner())
      yield* repo.insertAll([yield* settlement(other, usdcBase, payoutBase)])
    }))

  it.effect("finds, updates and removes within the merchant only", () =>
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const stranger = yield* newMerchant(yield* newPartner())
      const s = yield* settlement(merchant, usdcBase, payoutBase)
      yield* repo.insertAll([s])
      assert.deepStrictEqual(yield* repo.findById(merchant.id, s.id), Option.some(s))
      assert.isTrue(Option.isNone(yield* repo.findById(stranger.id, s.id)))
      assert.deepStrictEqual(yield* repo.findByAsset(merchant.id, usdcBase), Option.some(s))
      assert.isTrue(Option.isNone(yield* repo.findByAsset(merchant.id, usdcEth)))
      const moved = new CryptoSettlement({ ...s, destination: "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", updatedAt: s.updatedAt + 1 })
      yield* repo.update(moved)
      assert.deepStrictEqual(yield* repo.findById(merchant.id, s.id), Option.some(moved))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.update(new CryptoSettlement({ ...moved, merchantId: stranger.id })))))
      assert.isFalse(yield* repo.remove(stranger.id, s.id))
      assert.isTrue(yield* repo.remove(merchant.id, s.id))
      assert.isFalse(yield* repo.remove(merchant.id, s.id))
      assert.deepStrictEqual(yield* repo.list(merchant.id), [])
    }))
})
