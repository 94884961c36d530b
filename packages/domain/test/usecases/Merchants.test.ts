import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type DomainError, errorCode } from "../../src/errors/DomainErrors.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { PartnerId } from "../../src/ids/Ids.ts"
import type { Merchant } from "../../src/merchant/Merchant.ts"
import { layerMemoryMerchants, makeMemoryMerchants } from "../../src/testing/MemoryMerchantRepository.ts"
import { seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { type CreateMerchantInput, type ListMerchantsInput, Merchants, type PartnerAccess } from "../../src/usecases/Merchants.ts"

const access: PartnerAccess = { partnerId: "ptn_one" as PartnerId, mode: "sandbox" }
const otherPartner: PartnerAccess = { partnerId: "ptn_two" as PartnerId, mode: "sandbox" }
const otherMode: PartnerAccess = { partnerId: "ptn_one" as PartnerId, mode: "live" }

// A fresh store per test.
const provide = <A, E>(self: Effect.Effect<A, E, Merchants>) =>
  Effect.provide(
    self,
    Merchants.layer.pipe(
      Layer.provide(IdGenerator.layer),
      Layer.provide([layerMemoryMerchants(makeMemoryMerchants()), seededSecureRandom(11)])
    )
  )

const code = <A, E extends DomainError, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed<string>(errorCode(e))))

const create = (input: CreateMerchantInput, as: PartnerAccess = access) => Merchants.use((m) => m.create(as, input))
const list = (input: ListMerchantsInput, as: PartnerAccess = access) => Merchants.use((m) => m.list(as, input))
const names = (merchants: ReadonlyArray<Merchant>) => merchants.map((m) => m.name)
const later = TestClock.adjust("1 second")

describe("Merchants.create", () => {
  it.effect("creates an active merchant with a trimmed name", () =>
    provide(Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const merchant = yield* create({ merchantName: "  Coffee Shop ", merchantEmail: " owner@coffee.example ", iconUrl: "https://coffee.example/logo.png" })
      assert.match(merchant.id, /^mer_[0-9A-Z]{26}$/)
      assert.strictEqual(merchant.name, "Coffee Shop")
      assert.strictEqual(merchant.email, "owner@coffee.example")
      assert.strictEqual(merchant.iconUrl, "https://coffee.example/logo.png")
      assert.strictEqual(merchant.partnerId, access.partnerId)
      assert.strictEqual(merchant.mode, "sandbox")
      assert.isFalse(merchant.deleted)
      assert.strictEqual(merchant.createdAt, 1_800_000_000_000)
      assert.strictEqual(merchant.updatedAt, 1_800_000_000_000)
      const minimal = yield* create({ merchantName: "Tea" })
      assert.isNull(minimal.email)
      assert.isNull(minimal.iconUrl)
    })))

  it.effect.each([
    [{ merchantName: "" }],
    [{ merchantName: "   " }],
    [{ merchantName: "x".repeat(201) }],
    [{ merchantName: "A", merchantEmail: "" }],
    [{ merchantName: "A", merchantEmail: "nope" }],
    [{ merchantName: "A", merchantEmail: "a@b" }],
    [{ merchantName: "A", merchantEmail: "a b@c.example" }],
    [{ merchantName: "A", merchantEmail: "a@b@c.example" }],
    [{ merchantName: "A", merchantEmail: `${"a".repeat(60)}@${"b".repeat(190)}.com` }],
    [{ merchantName: "A", iconUrl: "http://coffee.example/logo.png" }],
    [{ merchantName: "A", iconUrl: "not a url" }],
    [{ merchantName: "A", iconUrl: "ftp://coffee.example/logo.png" }],
    [{ merchantName: "A", iconUrl: `https://coffee.example/${"x".repeat(2030)}` }]
  ])("rejects %j with params_validation", ([input]) =>
    provide(Effect.gen(function*() {
      assert.strictEqual(yield* code(create(input!)), "params_validation")
    })))

  it.effect("accepts the longest name, email and icon URL", () =>
    provide(Effect.gen(function*() {
      assert.strictEqual(yield* code(create({ merchantName: "x".repeat(200) })), "ok")
      assert.strictEqual(yield* code(create({ merchantName: "y", merchantEmail: `${"a".repeat(60)}@${"b".repeat(189)}.com` })), "ok")
      const url = `https://coffee.example/${"x".repeat(2048 - 23)}`
      assert.strictEqual(url.length, 2048)
      assert.strictEqual(yield* code(create({ merchantName: "z", iconUrl: url })), "ok")
    })))

  it.effect("refuses a second active merchant with the same name, case-insensitively", () =>
    provide(Effect.gen(function*() {
      yield* create({ merchantName: "Coffee Shop" })
      assert.strictEqual(yield* code(create({ merchantName: " COFFEE shop" })), "merchant_exists")
      assert.strictEqual(yield* code(create({ merchantName: "Coffee Shop" }, otherPartner)), "ok")
      assert.strictEqual(yield* code(create({ merchantName: "Coffee Shop" }, otherMode)), "ok")
    })))

  it.effect("lets exactly one of two concurrent creates with the same name win", () =>
    provide(Effect.gen(function*() {
      const codes = yield* Effect.all([code(create({ merchantName: "Coffee" })), code(create({ merchantName: "COFFEE" }))], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual([...codes].sort(), ["merchant_exists", "ok"])
    })))

  it.effect("frees the name of a deleted merchant", () =>
    provide(Effect.gen(function*() {
      const first = yield* create({ merchantName: "Coffee Shop" })
      yield* Merchants.use((m) => m.remove(access, first.id))
      assert.strictEqual(yield* code(create({ merchantName: "coffee shop" })), "ok")
    })))
})

describe("Merchants.get and getActive", () => {
  it.effect("answers the partner's merchant, deleted ones only through get", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      assert.deepStrictEqual(yield* Merchants.use((m) => m.get(access, merchant.id)), merchant)
      assert.deepStrictEqual(yield* Merchants.use((m) => m.getActive(access, merchant.id)), merchant)
      yield* Merchants.use((m) => m.remove(access, merchant.id))
      assert.isTrue((yield* Merchants.use((m) => m.get(access, merchant.id))).deleted)
      assert.strictEqual(yield* code(Merchants.use((m) => m.getActive(access, merchant.id))), "merchant_not_found")
    })))

  it.effect("reports unknown, malformed and foreign ids as merchant_not_found", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      const error = yield* Effect.flip(Merchants.use((m) => m.get(access, "mer_unknown")))
      assert.strictEqual(error._tag, "MerchantNotFound")
      assert.strictEqual(error.message, "No merchant mer_unknown.")
      for (const id of ["", "mer_", "mer_bad-id", `mer_${"a".repeat(65)}`, "pay_abc", merchant.id.toLowerCase().replace("mer_", "MER_")]) {
        assert.strictEqual(yield* code(Merchants.use((m) => m.get(access, id))), "merchant_not_found", id)
      }
      for (const as of [otherPartner, otherMode]) {
        assert.strictEqual(yield* code(Merchants.use((m) => m.get(as, merchant.id))), "merchant_not_found")
        assert.strictEqual(yield* code(Merchants.use((m) => m.getActive(as, merchant.id))), "merchant_not_found")
      }
    })))
})

describe("Merchants.list", () => {
  const seed = Effect.gen(function*() {
    const made: Array<Merchant> = []
    for (const name of ["Alpha Coffee", "Bravo Tea", "Charlie Coffee", "Delta Bakery", "Echo Coffee"]) {
      made.push(yield* create({ merchantName: name }))
      yield* later
    }
    yield* create({ merchantName: "Foreign Coffee" }, otherPartner)
    yield* create({ merchantName: "Live Coffee" }, otherMode)
    return made
  })

  it.effect("pages newest first across three pages with a cursor", () =>
    provide(Effect.gen(function*() {
      yield* seed
      const first = yield* list({ limit: "2" })
      assert.deepStrictEqual(names(first.data), ["Echo Coffee", "Delta Bakery"])
      assert.isNotNull(first.nextCursor)
      const second = yield* list({ limit: "2", cursor: first.nextCursor! })
      assert.deepStrictEqual(names(second.data), ["Charlie Coffee", "Bravo Tea"])
      const third = yield* list({ limit: "2", cursor: second.nextCursor! })
      assert.deepStrictEqual(names(third.data), ["Alpha Coffee"])
      assert.isNull(third.nextCursor)
      const all = yield* list({})
      assert.strictEqual(all.data.length, 5)
      assert.isNull(all.nextCursor)
    })))

  it.effect("breaks creation-time ties by id", () =>
    provide(Effect.gen(function*() {
      for (const name of ["a", "b", "c"]) yield* create({ merchantName: name })
      const pages = [yield* list({ limit: "1" })]
      while (pages.at(-1)!.nextCursor !== null) pages.push(yield* list({ limit: "1", cursor: pages.at(-1)!.nextCursor! }))
      const ids = pages.flatMap((p) => p.data.map((m) => m.id))
      assert.strictEqual(ids.length, 3)
      assert.deepStrictEqual(ids, [...ids].sort().reverse())
    })))

  it.effect("lists active merchants by default and deleted ones on request", () =>
    provide(Effect.gen(function*() {
      const made = yield* seed
      yield* Merchants.use((m) => m.remove(access, made[1]!.id))
      assert.deepStrictEqual(names((yield* list({})).data), ["Echo Coffee", "Delta Bakery", "Charlie Coffee", "Alpha Coffee"])
      assert.deepStrictEqual(names((yield* list({ status: "active" })).data).length, 4)
      assert.deepStrictEqual(names((yield* list({ status: "deleted" })).data), ["Bravo Tea"])
    })))

  it.effect("searches names case-insensitively and ids exactly", () =>
    provide(Effect.gen(function*() {
      const made = yield* seed
      assert.deepStrictEqual(names((yield* list({ search: "COFFEE" })).data), ["Echo Coffee", "Charlie Coffee", "Alpha Coffee"])
      assert.deepStrictEqual(names((yield* list({ search: " bak " })).data), ["Delta Bakery"])
      assert.deepStrictEqual(names((yield* list({ search: made[1]!.id })).data), ["Bravo Tea"])
      assert.deepStrictEqual((yield* list({ search: made[1]!.id.slice(0, -1) })).data, [])
      const paged = yield* list({ search: "coffee", limit: "2" })
      assert.deepStrictEqual(names((yield* list({ search: "coffee", limit: "2", cursor: paged.nextCursor! })).data), ["Alpha Coffee"])
    })))

  it.effect("keeps partners and modes apart", () =>
    provide(Effect.gen(function*() {
      yield* seed
      assert.deepStrictEqual(names((yield* list({}, otherPartner)).data), ["Foreign Coffee"])
      assert.deepStrictEqual(names((yield* list({}, otherMode)).data), ["Live Coffee"])
      assert.deepStrictEqual((yield* list({ search: "Foreign" })).data, [])
    })))

  it.effect.each([
    [{ status: "all" }],
    [{ status: "ACTIVE" }],
    [{ limit: "0" }],
    [{ limit: "101" }],
    [{ limit: "abc" }],
    [{ limit: "-1" }],
    [{ cursor: "not-a-cursor!" }],
    [{ cursor: "bm90IGpzb24" }]
  ])("rejects %j with invalid_params", ([input]) =>
    provide(Effect.gen(function*() {
      assert.strictEqual(yield* code(list(input!)), "invalid_params")
    })))
})

describe("Merchants.update", () => {
  const update = (id: string, input: Parameters<Merchants["Service"]["update"]>[2], as: PartnerAccess = access) =>
    Merchants.use((m) => m.update(as, id, input))

  it.effect("changes the given fields only and bumps updatedAt", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop", merchantEmail: "a@coffee.example", iconUrl: "https://coffee.example/a.png" })
      yield* later
      const renamed = yield* update(merchant.id, { merchantName: " Coffee House " })
      assert.strictEqual(renamed.name, "Coffee House")
      assert.strictEqual(renamed.email, "a@coffee.example")
      assert.strictEqual(renamed.iconUrl, "https://coffee.example/a.png")
      assert.strictEqual(renamed.createdAt, merchant.createdAt)
      assert.strictEqual(renamed.updatedAt, merchant.updatedAt + 1000)
      const emailed = yield* update(merchant.id, { merchantEmail: "b@coffee.example", iconUrl: "https://coffee.example/b.png" })
      assert.strictEqual(emailed.email, "b@coffee.example")
      assert.strictEqual(emailed.iconUrl, "https://coffee.example/b.png")
      const unset = yield* update(merchant.id, { iconUrl: null })
      assert.isNull(unset.iconUrl)
      assert.strictEqual(unset.name, "Coffee House")
      assert.deepStrictEqual(yield* Merchants.use((m) => m.get(access, merchant.id)), unset)
    })))

  it.effect("requires at least one field", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      const error = yield* Effect.flip(update(merchant.id, {}))
      assert.strictEqual(error._tag, "ParamsValidation")
      assert.strictEqual(error.message, "at least one of merchantName, merchantEmail, iconUrl is required.")
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: undefined })), "params_validation")
    })))

  it.effect("validates fields like create", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: " " })), "params_validation")
      assert.strictEqual(yield* code(update(merchant.id, { merchantEmail: "nope" })), "params_validation")
      assert.strictEqual(yield* code(update(merchant.id, { iconUrl: "http://coffee.example/a.png" })), "params_validation")
      assert.strictEqual((yield* Merchants.use((m) => m.get(access, merchant.id))).name, "Coffee Shop")
    })))

  it.effect("refuses a name in use, but not the merchant's own in another case", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      yield* create({ merchantName: "Tea House" })
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: "TEA HOUSE" })), "merchant_exists")
      assert.strictEqual((yield* update(merchant.id, { merchantName: "COFFEE SHOP" })).name, "COFFEE SHOP")
    })))

  it.effect("reports deleted, unknown and foreign merchants as merchant_not_found", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      assert.strictEqual(yield* code(update("mer_unknown", { merchantName: "x" })), "merchant_not_found")
      assert.strictEqual(yield* code(update("nope", { merchantName: "x" })), "merchant_not_found")
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: "x" }, otherPartner)), "merchant_not_found")
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: "x" }, otherMode)), "merchant_not_found")
      yield* Merchants.use((m) => m.remove(access, merchant.id))
      assert.strictEqual(yield* code(update(merchant.id, { merchantName: "x" })), "merchant_not_found")
    })))
})

describe("Merchants.remove", () => {
  it.effect("soft-deletes once and answers the deleted merchant again", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      yield* later
      const deleted = yield* Merchants.use((m) => m.remove(access, merchant.id))
      assert.isTrue(deleted.deleted)
      assert.strictEqual(deleted.updatedAt, merchant.updatedAt + 1000)
      assert.strictEqual(deleted.name, "Coffee Shop")
      yield* later
      assert.deepStrictEqual(yield* Merchants.use((m) => m.remove(access, merchant.id)), deleted)
      assert.deepStrictEqual((yield* list({})).data, [])
    })))

  it.effect("reports unknown and foreign merchants as merchant_not_found", () =>
    provide(Effect.gen(function*() {
      const merchant = yield* create({ merchantName: "Coffee Shop" })
      assert.strictEqual(yield* code(Merchants.use((m) => m.remove(access, "mer_unknown"))), "merchant_not_found")
      assert.strictEqual(yield* code(Merchants.use((m) => m.remove(access, "../etc"))), "merchant_not_found")
      assert.strictEqual(yield* code(Merchants.use((m) => m.remove(otherPartner, merchant.id))), "merchant_not_found")
      assert.strictEqual(yield* code(Merchants.use((m) => m.remove(otherMode, merchant.id))), "merchant_not_found")
      assert.isFalse((yield* Merchants.use((m) => m.get(access, merchant.id))).deleted)
    })))
})
