import { type Cursor, Merchant, MerchantRepository } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { SqlClient } from "effect/sql"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner } from "./support/Fixtures.ts"

adapterSuite("SqlMerchantRepository", (it) => {
  it.effect("round-trips a merchant, visible only to its partner and mode", () =>
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const partner = yield* newPartner()
      const merchant = yield* newMerchant(partner, { name: "Café Ünïcode" })
      const withDetails = new Merchant({ ...merchant, email: "ops@shop.example", iconUrl: "https://shop.example/i.png", updatedAt: merchant.updatedAt + 5 })
      yield* repo.update(withDetails)
      assert.deepStrictEqual(yield* repo.findById(partner.id, "sandbox", merchant.id), Option.some(withDetails))
      assert.isTrue(Option.isNone(yield* repo.findById(partner.id, "live", merchant.id)))
      assert.isTrue(Option.isNone(yield* repo.findById((yield* newPartner()).id, "sandbox", merchant.id)))
    }))

  it.effect("an active merchant's name is unique per partner and mode, case-insensitively", () =>
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const partner = yield* newPartner()
      const acme = yield* newMerchant(partner, { name: "Acme Café" })
      const clash = yield* newMerchant(partner, { name: "Other" }).pipe(
        Effect.map((m) => new Merchant({ ...m, id: `${m.id}X` as Merchant["id"], name: "ACME CAFÉ" }))
      )
      const error = yield* Effect.flip(repo.insert(clash))
      assert.strictEqual(error._tag, "MerchantExists")
      assert.include(error.message, "ACME CAFÉ")
      // Same name: fine in the other mode and for another partner.
      yield* newMerchant(partner, { name: "acme café", mode: "live" })
      yield* newMerchant(yield* newPartner(), { name: "acme café" })
      // Renaming another merchant onto the name is refused too.
      const other = yield* newMerchant(partner, { name: "Globex" })
      assert.strictEqual((yield* Effect.flip(repo.update(new Merchant({ ...other, name: "aCmE cAfÉ" }))))._tag, "MerchantExists")
      // Once deleted, the name is free again; restoring the deleted one then clashes.
      yield* repo.update(new Merchant({ ...acme, deleted: true }))
      yield* repo.insert(clash)
      assert.strictEqual((yield* Effect.flip(repo.update(acme)))._tag, "MerchantExists")
      assert.deepStrictEqual(Option.map(yield* repo.findById(partner.id, "sandbox", acme.id), (m) => m.deleted), Option.some(true))
    }))

  it.effect("a refused insert inside a caller's transaction leaves that transaction usable", () =>
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const sql = yield* SqlClient.SqlClient
      const partner = yield* newPartner()
      const first = yield* newMerchant(partner, { name: "Initech" })
      const second = new Merchant({ ...first, id: `${first.id}Y` as Merchant["id"] })
      const third = new Merchant({ ...first, id: `${first.id}Z` as Merchant["id"], name: "Initrode" })
      yield* Effect.gen(function*() {
        assert.strictEqual((yield* Effect.flip(repo.insert(second)))._tag, "MerchantExists")
        yield* repo.insert(third)
      }).pipe(sql.withTransaction)
      assert.isTrue(Option.isSome(yield* repo.findById(partner.id, "sandbox", third.id)))
    }))

  it.effect("inserting an existing id or updating an unknown merchant is a defect", () =>
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const merchant = yield* newMerchant(yield* newPartner(), { name: "Dup" })
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.insert(new Merchant({ ...merchant, name: "Dup 2" })))))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(repo.update(new Merchant({ ...merchant, id: "mer_NOPE" as Merchant["id"] })))))
    }))

  it.effect("lists newest first with status and search filters, paged by cursor", () =>
    Effect.gen(function*() {
      const repo = yield* MerchantRepository
      const partner = yield* newPartner()
      const names = ["Alpha Books", "beta BOOKS", "Gamma Toys", "Delta books", "Epsilon"]
      const stamps = [1000, 2000, 2000, 3000, 3000]
      const merchants: Array<Merchant> = []
      for (const [index, name] of names.entries()) merchants.push(yield* newMerchant(partner, { name, createdAt: stamps[index]! }))
      yield* newMerchant(partner, { name: "Live Books", mode: "live" })
      const deleted = new Merchant({ ...merchants[3]!, deleted: true })
      yield* repo.update(deleted)

      const newestFirst = [...merchants].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      const list = (q: { status?: "active" | "deleted"; search?: string; after?: Cursor | null; limit?: number }) =>
        repo.list({ partnerId: partner.id, mode: "sandbox", after: q.after ?? null, limit: q.limit ?? 50, status: q.status, search: q.search })
          .pipe(Effect.map((ms) => ms.map((m) => m.id)))
      assert.deepStrictEqual(yield* list({}), newestFirst.map((m) => m.id))
      assert.deepStrictEqual(yield* list({ status: "deleted" }), [deleted.id])
      assert.deepStrictEqual(yield* list({ status: "active" }), newestFirst.filter((m) => m.id !== deleted.id).map((m) => m.id))
      assert.deepStrictEqual(
        [...(yield* list({ search: "books" }))].sort(),
        [merchants[0]!.id, merchants[1]!.id, merchants[3]!.id].sort()
      )
      assert.deepStrictEqual(yield* list({ search: merchants[2]!.id }), [merchants[2]!.id])
      assert.deepStrictEqual(yield* list({ search: "%" }), [], "LIKE wildcards are plain characters")

      const paged: Array<string> = []
      let after: Cursor | null = null
      for (let i = 0; i < 10; i++) {
        const page: ReadonlyArray<Merchant> = yield* repo.list({ partnerId: partner.id, mode: "sandbox", after, limit: 2 })
        if (page.length === 0) break
        paged.push(...page.map((m) => m.id))
        after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id }
      }
      assert.deepStrictEqual(paged, newestFirst.map((m) => m.id))
    }))
})
