import {
  CryptoSettlement,
  EventOutbox,
  IdGenerator,
  type Merchant,
  type SettlementDestinationChange,
  settlementDestinationChanged,
  SettlementDestinationEvent,
  SettlementRepository
} from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner } from "./support/Fixtures.ts"

const usdcBase = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const usdcEth = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const payoutBase = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const payoutEth = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const otherPayoutBase = "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

const settlement = (merchant: Merchant, asset: string, destination: string, createdAt = 1_700_000_000_000) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new CryptoSettlement({ id: yield* ids.make("settlement"), merchantId: merchant.id, asset, destination, createdAt, updatedAt: createdAt, usableFrom: createdAt })
  })

const eventOf = (merchant: Merchant, s: CryptoSettlement, change: SettlementDestinationChange, previousDestination: string | null = null) =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new SettlementDestinationEvent({
      id: yield* ids.make("event"),
      type: settlementDestinationChanged,
      partnerId: merchant.partnerId,
      mode: merchant.mode,
      settlement: s,
      change,
      previousDestination,
      createdAt: Math.floor(s.updatedAt / 1000)
    })
  })

// The outbox rows of a partner's events: kind, payment (none) and id.
const outboxOf = (merchant: Merchant) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly id: string; readonly type: string; readonly payment_id: string | null }>`
      SELECT id, type, payment_id FROM outbox_events WHERE partner_id = ${merchant.partnerId} ORDER BY created_at, id`
  })

adapterSuite("SqlSettlementRepository", (it) => {
  it.effect("stores all or nothing, with the events; a second destination for an asset is invalid_state", () =>
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const base = yield* settlement(merchant, usdcBase, payoutBase, 1000)
      const eth = yield* settlement(merchant, usdcEth, payoutEth, 2000)
      const added = yield* eventOf(merchant, base, "added")
      yield* repo.insertAll([base], [added])
      assert.deepStrictEqual(yield* outboxOf(merchant), [{ id: added.id, type: settlementDestinationChanged, payment_id: null }])
      // The batch repeats an asset that already has a destination: nothing of it is written, nor its events.
      const again = yield* settlement(merchant, usdcBase, payoutBase)
      const error = yield* Effect.flip(repo.insertAll([eth, again], [yield* eventOf(merchant, eth, "added"), yield* eventOf(merchant, again, "added")]))
      assert.strictEqual(error._tag, "InvalidState")
      assert.include(error.message, usdcBase)
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base])
      // A batch repeating an asset within itself fails as a whole too.
      const eth2 = yield* settlement(merchant, usdcEth, payoutEth)
      assert.strictEqual((yield* Effect.flip(repo.insertAll([eth, eth2], [])))._tag, "InvalidState")
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base])
      assert.deepStrictEqual((yield* outboxOf(merchant)).map((r) => r.id), [added.id])
      yield* repo.insertAll([eth], [])
      assert.deepStrictEqual(yield* repo.list(merchant.id), [base, eth])
      yield* repo.insertAll([], [])
      // Another merchant may use the same asset.
      const other = yield* newMerchant(yield* newPartner())
      yield* repo.insertAll([yield* settlement(other, usdcBase, payoutBase)], [])
    }))

  it.effect("a failure after the destination is written rolls it back: no destination, no event", () =>
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const merchant = yield* newMerchant(yield* newPartner())
      const first = yield* settlement(merchant, usdcBase, payoutBase)
      const event = yield* eventOf(merchant, first, "added")
      yield* repo.insertAll([first], [event])
      // The event's insert fails (its id is taken) after the destination's insert succeeded.
      const second = yield* settlement(merchant, usdcEth, payoutEth)
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.insertAll([second], [new SettlementDestinationEvent({ ...event, settlement: second })]))))
      assert.deepStrictEqual(yield* repo.list(merchant.id), [first])
      const moved = new CryptoSettlement({ ...first, destination: otherPayoutBase, updatedAt: first.updatedAt + 1 })
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.update(moved, first.destination, new SettlementDestinationEvent({ ...event, settlement: moved })))))
      assert.deepStrictEqual(yield* repo.list(merchant.id), [first])
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.remove(merchant.id, first.id, (removed) => new SettlementDestinationEvent({ ...event, settlement: removed })))))
      assert.deepStrictEqual(yield* repo.list(merchant.id), [first])
      assert.deepStrictEqual((yield* outboxOf(merchant)).map((r) => r.id), [event.id])
    }))

  it.effect("finds, updates (if unchanged meanwhile) and removes within the merchant only, each with its event", () =>
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const outbox = yield* EventOutbox
      const merchant = yield* newMerchant(yield* newPartner())
      const stranger = yield* newMerchant(yield* newPartner())
      const s = yield* settlement(merchant, usdcBase, payoutBase)
      yield* repo.insertAll([s], [])
      assert.deepStrictEqual(yield* repo.findById(merchant.id, s.id), Option.some(s))
      assert.isTrue(Option.isNone(yield* repo.findById(stranger.id, s.id)))
      assert.deepStrictEqual(yield* repo.findByAsset(merchant.id, usdcBase), Option.some(s))
      assert.isTrue(Option.isNone(yield* repo.findByAsset(merchant.id, usdcEth)))
      const moved = new CryptoSettlement({ ...s, destination: otherPayoutBase, updatedAt: s.updatedAt + 1 })
      const changed = yield* eventOf(merchant, moved, "changed", s.destination)
      assert.isTrue(yield* repo.update(moved, s.destination, changed))
      assert.deepStrictEqual(yield* repo.findById(merchant.id, s.id), Option.some(moved))
      // Read before the change: the compare-and-set refuses it, and writes no event.
      assert.isFalse(yield* repo.update(new CryptoSettlement({ ...s, destination: payoutBase }), s.destination, yield* eventOf(merchant, s, "changed")))
      assert.isFalse(yield* repo.update(new CryptoSettlement({ ...moved, merchantId: stranger.id }), moved.destination, yield* eventOf(merchant, s, "changed")))
      assert.deepStrictEqual(yield* repo.findById(merchant.id, s.id), Option.some(moved))
      const removedEvent = (removed: CryptoSettlement) => new SettlementDestinationEvent({ ...changed, id: `${changed.id}x` as typeof changed.id, settlement: removed, change: "removed", previousDestination: null })
      assert.isFalse(yield* repo.remove(stranger.id, s.id, removedEvent))
      assert.isTrue(yield* repo.remove(merchant.id, s.id, removedEvent))
      assert.isFalse(yield* repo.remove(merchant.id, s.id, removedEvent))
      assert.deepStrictEqual(yield* repo.list(merchant.id), [])
      // The events decode back exactly; the removal's carries the destination as it was.
      const claimed = (yield* outbox.claim(100, 60_000)).filter((e) => e.partnerId === merchant.partnerId)
      assert.deepStrictEqual(claimed, [changed, removedEvent(moved)])
      assert.deepStrictEqual(yield* outboxOf(stranger), [])
    }))
})
