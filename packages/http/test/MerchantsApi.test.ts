import { beforeAll, describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner, unique } from "../../../test/support/TestServer.ts"
import { expectError } from "../../../test/support/ExpectError.ts"

const usdcEthereum = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const usdcBase = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const walletEthereum = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const otherWalletEthereum = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const walletBase = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

/** Lets the clock move on, so that records made one after the other have distinct creation times. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3))

forEachDatabase("Partner API: merchants", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner

  beforeAll(async () => {
    partner = await server.partner()
  })

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, apiKey = partner.sandbox) =>
    server.request(method, path, { apiKey, body, headers })
  // `key: null` sends no Idempotency-Key.
  const create = (body: unknown, key: string | null = unique("key"), apiKey = partner.sandbox) =>
    call("POST", "/v1/merchants", body, key === null ? {} : { "idempotency-key": key }, apiKey)

  describe("POST /v1/merchants", () => {
    it("creates a merchant: 201 with its record", async () => {
      const name = unique("Coffee Shop")
      const response = await create({ merchantName: `  ${name} ` })
      expect(response.status).toBe(201)
      expect(response.body).toEqual({
        merchantId: expect.stringMatching(/^mer_[0-9A-HJKMNP-TV-Z]{26}$/),
        merchantName: name,
        merchantEmail: null,
        iconUrl: null,
        status: "active",
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number)
      })
      expect(response.body.updatedAt).toBe(response.body.createdAt)
      expect(response.body.createdAt).toBeGreaterThan(1_700_000_000)
      expect(response.body.createdAt).toBeLessThan(10_000_000_000)
    })

    it("stores the optional email and icon; null means left out", async () => {
      const full = await create({ merchantName: unique("Shop"), merchantEmail: "owner@shop.example", iconUrl: "https://cdn.example/icon.png" })
      expect(full.status).toBe(201)
      expect(full.body).toMatchObject({ merchantEmail: "owner@shop.example", iconUrl: "https://cdn.example/icon.png" })
      const nulls = await create({ merchantName: unique("Shop"), merchantEmail: null, iconUrl: null })
      expect(nulls.status).toBe(201)
      expect(nulls.body).toMatchObject({ merchantEmail: null, iconUrl: null })
    })

    it("requires Idempotency-Key: 400 params_validation without one", async () => {
      const name = unique("Keyless")
      const response = await create({ merchantName: name }, null)
      expectError(response, 400, "params_validation")
      expect(response.body.message).toBe("The Idempotency-Key header is required.")
      const listed = await call("GET", `/v1/merchants?search=${encodeURIComponent(name)}`)
      expect(listed.body.data).toEqual([])
    })

    it("answers a retry with the same key with the originally created merchant", async () => {
      const key = unique("retry")
      const body = { merchantName: unique("Retry Shop") }
      const first = await create(body, key)
      const again = await create(body, key)
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body).toEqual(first.body)
      const listed = await call("GET", `/v1/merchants?search=${encodeURIComponent(body.merchantName)}`)
      expect(listed.body.data.map((m: any) => m.merchantId)).toEqual([first.body.merchantId])
      expectError(await create({ merchantName: unique("Other") }, key), 409, "idempotency_conflict")
    })

    it("responds 409 merchant_exists for an active merchant with the same name, in any case", async () => {
      const name = unique("Twin Shop")
      expect((await create({ merchantName: name })).status).toBe(201)
      expectError(await create({ merchantName: name.toUpperCase() }), 409, "merchant_exists")
      expectError(await create({ merchantName: ` ${name.toLowerCase()} ` }), 409, "merchant_exists")
    })

    it("allows the name again once the merchant is deleted", async () => {
      const name = unique("Phoenix")
      const first = await create({ merchantName: name })
      await call("DELETE", `/v1/merchants/${first.body.merchantId}`)
      const second = await create({ merchantName: name })
      expect(second.status).toBe(201)
      expect(second.body.merchantId).not.toBe(first.body.merchantId)
    })

    it("responds 400 params_validation for values that break a rule", async () => {
      for (
        const body of [
          { merchantName: "" },
          { merchantName: "   " },
          { merchantName: "x".repeat(201) },
          { merchantName: unique("Shop"), merchantEmail: "not-an-email" },
          { merchantName: unique("Shop"), iconUrl: "http://cdn.example/icon.png" },
          { merchantName: unique("Shop"), iconUrl: "icon.png" }
        ]
      ) {
        expectError(await create(body), 400, "params_validation")
      }
    })

    it("responds 400 invalid_params for malformed bodies", async () => {
      for (const body of [{}, { merchantName: 7 }, { merchantName: "Shop", merchantEmail: 1 }, { merchantName: "Shop", iconUrl: false }, [], "Shop"]) {
        expectError(await create(body), 400, "invalid_params")
      }
      const raw = await server.request("POST", "/v1/merchants", {
        apiKey: partner.sandbox,
        rawBody: "{\"merchantName\":",
        headers: { "idempotency-key": unique("raw") }
      })
      expectError(raw, 400, "invalid_params")
    })
  })

  describe("GET /v1/merchants", () => {
    let lister: TestPartner
    const names = ["Alpha Books", "Beta Bikes", "Gamma Books", "Delta Cafe"]
    const ids: Array<string> = []
    const list = (query: string) => server.request("GET", `/v1/merchants${query}`, { apiKey: lister.sandbox })
    const listedIds = (response: { body: any }) => response.body.data.map((m: any) => m.merchantId)

    beforeAll(async () => {
      lister = await server.partner()
      for (const name of names) {
        ids.push(await server.merchant(lister.sandbox, name))
        await tick()
      }
      await server.request("DELETE", `/v1/merchants/${ids[3]}`, { apiKey: lister.sandbox })
    })

    it("lists active merchants newest first", async () => {
      const response = await list("")
      expect(response.status).toBe(200)
      expect(listedIds(response)).toEqual([ids[2], ids[1], ids[0]])
      expect(response.body.nextCursor).toBeNull()
      expect(response.body.data[0]).toMatchObject({ merchantName: "Gamma Books", status: "active" })
    })

    it("lists deleted merchants with status=deleted", async () => {
      const response = await list("?status=deleted")
      expect(listedIds(response)).toEqual([ids[3]])
      expect(response.body.data[0].status).toBe("deleted")
      expect(listedIds(await list("?status=active"))).toEqual([ids[2], ids[1], ids[0]])
    })

    it("searches names (any case) and ids", async () => {
      expect(listedIds(await list("?search=books"))).toEqual([ids[2], ids[0]])
      expect(listedIds(await list("?search=BIKES"))).toEqual([ids[1]])
      expect(listedIds(await list(`?search=${ids[0]}`))).toEqual([ids[0]])
      expect(listedIds(await list("?search=nothing-like-this"))).toEqual([])
      expect(listedIds(await list("?search=%20%20"))).toEqual([ids[2], ids[1], ids[0]])
    })

    it("pages with limit and cursor", async () => {
      const first = await list("?limit=2")
      expect(listedIds(first)).toEqual([ids[2], ids[1]])
      expect(first.body.nextCursor).toEqual(expect.any(String))
      const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`)
      expect(listedIds(second)).toEqual([ids[0]])
      expect(second.body.nextCursor).toBeNull()
    })

    it("responds 400 invalid_params for bad status, limit or cursor", async () => {
      for (const query of ["?status=all", "?status=ACTIVE", "?limit=0", "?limit=500", "?limit=x", "?cursor=%%%", "?cursor=abc"]) {
        expectError(await list(query), 400, "invalid_params")
      }
    })
  })

  describe("GET /v1/merchants/{merchantId}", () => {
    it("answers the profile with its settlements", async () => {
      const created = await create({ merchantName: unique("Profile"), merchantEmail: "a@b.example" })
      const id = created.body.merchantId
      const empty = await call("GET", `/v1/merchants/${id}`)
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual({ ...created.body, settlements: { crypto: [], fiat: [] } })
      const registered = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      })
      const withSettlement = await call("GET", `/v1/merchants/${id}`)
      expect(withSettlement.body.settlements).toEqual({ crypto: registered.body.crypto, fiat: [] })
    })

    it("still answers a deleted merchant, as deleted", async () => {
      const id = await server.merchant(partner.sandbox)
      await call("DELETE", `/v1/merchants/${id}`)
      const response = await call("GET", `/v1/merchants/${id}`)
      expect(response.status).toBe(200)
      expect(response.body.status).toBe("deleted")
    })

    it("responds 404 merchant_not_found for unknown and malformed ids", async () => {
      expectError(await call("GET", "/v1/merchants/mer_00000000000000000000000000"), 404, "merchant_not_found")
      expectError(await call("GET", "/v1/merchants/shop"), 404, "merchant_not_found")
      expectError(await call("GET", "/v1/merchants/pay_00000000000000000000000000"), 404, "merchant_not_found")
    })
  })

  describe("PATCH /v1/merchants/{merchantId}", () => {
    it("updates the given fields only", async () => {
      const created = await create({ merchantName: unique("Patchy"), merchantEmail: "old@shop.example", iconUrl: "https://cdn.example/a.png" })
      const id = created.body.merchantId
      const renamed = await call("PATCH", `/v1/merchants/${id}`, { merchantName: "  Patchy Renamed  " })
      expect(renamed.status).toBe(200)
      expect(renamed.body).toEqual({
        ...created.body,
        merchantName: "Patchy Renamed",
        updatedAt: expect.any(Number)
      })
      expect(renamed.body.updatedAt).toBeGreaterThanOrEqual(created.body.updatedAt)
      const emailed = await call("PATCH", `/v1/merchants/${id}`, { merchantEmail: "new@shop.example" })
      expect(emailed.body).toMatchObject({ merchantName: "Patchy Renamed", merchantEmail: "new@shop.example", iconUrl: "https://cdn.example/a.png" })
      expect((await call("GET", `/v1/merchants/${id}`)).body).toMatchObject({ merchantEmail: "new@shop.example" })
    })

    it("unsets the icon with iconUrl: null and keeps it when iconUrl is left out", async () => {
      const created = await create({ merchantName: unique("Icon"), iconUrl: "https://cdn.example/a.png" })
      const id = created.body.merchantId
      const kept = await call("PATCH", `/v1/merchants/${id}`, { merchantEmail: "x@y.example" })
      expect(kept.body.iconUrl).toBe("https://cdn.example/a.png")
      const changed = await call("PATCH", `/v1/merchants/${id}`, { iconUrl: "https://cdn.example/b.svg" })
      expect(changed.body.iconUrl).toBe("https://cdn.example/b.svg")
      const unset = await call("PATCH", `/v1/merchants/${id}`, { iconUrl: null })
      expect(unset.status).toBe(200)
      expect(unset.body.iconUrl).toBeNull()
      expect((await call("GET", `/v1/merchants/${id}`)).body.iconUrl).toBeNull()
    })

    it("responds 400 params_validation for an empty update or bad values", async () => {
      const id = await server.merchant(partner.sandbox)
      for (const body of [{}, { merchantName: "" }, { merchantEmail: "nope" }, { iconUrl: "ftp://cdn.example/a.png" }]) {
        expectError(await call("PATCH", `/v1/merchants/${id}`, body), 400, "params_validation")
      }
    })

    it("responds 400 invalid_params for wrong types", async () => {
      const id = await server.merchant(partner.sandbox)
      for (const body of [{ merchantName: 1 }, { merchantEmail: null }, { iconUrl: 3 }, []]) {
        expectError(await call("PATCH", `/v1/merchants/${id}`, body), 400, "invalid_params")
      }
    })

    it("responds 409 merchant_exists when renaming onto another active merchant", async () => {
      const taken = unique("Taken")
      await server.merchant(partner.sandbox, taken)
      const id = await server.merchant(partner.sandbox)
      expectError(await call("PATCH", `/v1/merchants/${id}`, { merchantName: taken.toLowerCase() }), 409, "merchant_exists")
    })

    it("responds 404 merchant_not_found for unknown and deleted merchants", async () => {
      expectError(await call("PATCH", "/v1/merchants/mer_00000000000000000000000000", { merchantName: "X" }), 404, "merchant_not_found")
      const id = await server.merchant(partner.sandbox)
      await call("DELETE", `/v1/merchants/${id}`)
      expectError(await call("PATCH", `/v1/merchants/${id}`, { merchantName: "X" }), 404, "merchant_not_found")
    })
  })

  describe("DELETE /v1/merchants/{merchantId}", () => {
    it("soft-deletes, idempotently", async () => {
      const id = await server.merchant(partner.sandbox)
      const first = await call("DELETE", `/v1/merchants/${id}`)
      expect(first.status).toBe(200)
      expect(first.body).toEqual({ merchantId: id, deleted: true })
      const again = await call("DELETE", `/v1/merchants/${id}`)
      expect(again.status).toBe(200)
      expect(again.body).toEqual({ merchantId: id, deleted: true })
      expect((await call("GET", `/v1/merchants?search=${id}`)).body.data).toEqual([])
      expectError(
        await call("POST", "/v1/payments", { merchantId: id, amount: { unit: "iso4217/USD", value: "100" }, referenceId: "r" }),
        404,
        "merchant_not_found"
      )
    })

    it("responds 404 merchant_not_found for an unknown merchant", async () => {
      expectError(await call("DELETE", "/v1/merchants/mer_00000000000000000000000000"), 404, "merchant_not_found")
      expectError(await call("DELETE", "/v1/merchants/garbage"), 404, "merchant_not_found")
    })
  })

  describe("crypto settlements", () => {
    const settlementRecord = {
      id: expect.stringMatching(/^stl_[0-9A-HJKMNP-TV-Z]{26}$/),
      asset: expect.any(String),
      destination: expect.any(String),
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      usableFrom: expect.any(Number)
    }

    it("registers destinations (201), lists them and answers them in canonical form", async () => {
      const id = await server.merchant(partner.sandbox)
      const response = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [
          { asset: usdcEthereum, destination: walletEthereum.toLowerCase() },
          { asset: usdcBase, destination: walletBase }
        ]
      })
      expect(response.status).toBe(201)
      expect(Object.keys(response.body)).toEqual(["crypto"])
      expect(response.body.crypto).toEqual([
        { ...settlementRecord, asset: usdcEthereum, destination: walletEthereum },
        { ...settlementRecord, asset: usdcBase, destination: walletBase }
      ])
      const listed = await call("GET", `/v1/merchants/${id}/settlements`)
      expect(listed.status).toBe(200)
      // Oldest first; registered together, they share a creation time and their order is the ids'.
      const byId = (a: any, b: any) => a.id < b.id ? -1 : 1
      expect(listed.body).toEqual({ crypto: [...response.body.crypto].sort(byId), fiat: [] })
    })

    it("responds 409 invalid_state for an asset that already has a destination, all or nothing", async () => {
      const id = await server.merchant(partner.sandbox)
      await call("POST", `/v1/merchants/${id}/settlements/crypto`, { settlements: [{ asset: usdcEthereum, destination: walletEthereum }] })
      const again = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcBase, destination: walletBase }, { asset: usdcEthereum, destination: otherWalletEthereum }]
      })
      expectError(again, 409, "invalid_state")
      const listed = await call("GET", `/v1/merchants/${id}/settlements`)
      expect(listed.body.crypto.map((s: any) => s.asset)).toEqual([usdcEthereum])
      const repeated = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcBase, destination: walletBase }, { asset: usdcBase, destination: walletBase }]
      })
      expectError(repeated, 409, "invalid_state")
    })

    it("responds 400 params_validation for bad CAIP ids, chain mismatches and empty lists", async () => {
      const id = await server.merchant(partner.sandbox)
      for (
        const settlements of [
          [],
          [{ asset: "usdc", destination: walletEthereum }],
          [{ asset: usdcEthereum, destination: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }],
          [{ asset: usdcEthereum, destination: walletBase }],
          [{ asset: usdcEthereum, destination: "eip155:1:0x1234" }]
        ]
      ) {
        expectError(await call("POST", `/v1/merchants/${id}/settlements/crypto`, { settlements }), 400, "params_validation")
      }
      expect((await call("GET", `/v1/merchants/${id}/settlements`)).body.crypto).toEqual([])
    })

    it("responds 400 invalid_params for malformed bodies", async () => {
      const id = await server.merchant(partner.sandbox)
      for (const body of [{}, { settlements: "x" }, { settlements: [{ asset: usdcEthereum }] }, { settlements: [{ asset: 1, destination: walletEthereum }] }]) {
        expectError(await call("POST", `/v1/merchants/${id}/settlements/crypto`, body), 400, "invalid_params")
      }
    })

    it("a live destination is usable a day after it is added or changed to another account; a sandbox one at once", async () => {
      const day = 86_400
      const live = await server.merchant(partner.live)
      const before = Math.floor(Date.now() / 1000)
      const registered = await call("POST", `/v1/merchants/${live}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      }, {}, partner.live)
      expect(registered.status).toBe(201)
      const settlement = registered.body.crypto[0]
      expect(settlement.usableFrom - settlement.createdAt).toBe(day)
      const same = await call("PUT", `/v1/merchants/${live}/settlements/crypto/${settlement.id}`, { destination: walletEthereum.toLowerCase() }, {}, partner.live)
      expect(same.body.usableFrom).toBe(settlement.usableFrom)
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      const moved = await call("PUT", `/v1/merchants/${live}/settlements/crypto/${settlement.id}`, { destination: otherWalletEthereum }, {}, partner.live)
      expect(moved.status).toBe(200)
      expect(moved.body.usableFrom).toBeGreaterThan(settlement.usableFrom)
      expect(moved.body.usableFrom).toBeGreaterThanOrEqual(before + 1 + day)
      expect((await call("GET", `/v1/merchants/${live}`, undefined, {}, partner.live)).body.settlements.crypto).toEqual([moved.body])

      const sandbox = await server.merchant(partner.sandbox)
      const now = await call("POST", `/v1/merchants/${sandbox}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      })
      expect(now.body.crypto[0].usableFrom).toBe(now.body.crypto[0].createdAt)
    })

    it("changes a destination on the asset's chain", async () => {
      const id = await server.merchant(partner.sandbox)
      const registered = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      })
      const settlement = registered.body.crypto[0]
      const changed = await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlement.id}`, { destination: otherWalletEthereum.toLowerCase() })
      expect(changed.status).toBe(200)
      expect(changed.body).toEqual({ ...settlement, destination: otherWalletEthereum, updatedAt: expect.any(Number), usableFrom: expect.any(Number) })
      expect((await call("GET", `/v1/merchants/${id}/settlements`)).body.crypto).toEqual([changed.body])
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlement.id}`, { destination: walletBase }), 400, "params_validation")
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlement.id}`, { destination: "nope" }), 400, "params_validation")
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlement.id}`, { destination: 5 }), 400, "invalid_params")
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlement.id}`, {}), 400, "invalid_params")
      expectError(
        await call("PUT", `/v1/merchants/${id}/settlements/crypto/stl_00000000000000000000000000`, { destination: walletEthereum }),
        404,
        "merchant_not_found"
      )
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/other`, { destination: walletEthereum }), 404, "merchant_not_found")
    })

    it("removes a destination; removing it again is 404", async () => {
      const id = await server.merchant(partner.sandbox)
      const registered = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      })
      const settlementId = registered.body.crypto[0].id
      const removed = await call("DELETE", `/v1/merchants/${id}/settlements/crypto/${settlementId}`)
      expect(removed.status).toBe(200)
      expect(removed.body).toEqual({ id: settlementId, deleted: true })
      expect((await call("GET", `/v1/merchants/${id}/settlements`)).body.crypto).toEqual([])
      expectError(await call("DELETE", `/v1/merchants/${id}/settlements/crypto/${settlementId}`), 404, "merchant_not_found")
      // The asset can be registered again once its destination is removed.
      expect(
        (await call("POST", `/v1/merchants/${id}/settlements/crypto`, { settlements: [{ asset: usdcEthereum, destination: walletEthereum }] })).status
      ).toBe(201)
    })

    it("responds 404 merchant_not_found for unknown merchants, and for changes to deleted ones", async () => {
      const unknown = "mer_00000000000000000000000000"
      expectError(await call("GET", `/v1/merchants/${unknown}/settlements`), 404, "merchant_not_found")
      expectError(
        await call("POST", `/v1/merchants/${unknown}/settlements/crypto`, { settlements: [{ asset: usdcEthereum, destination: walletEthereum }] }),
        404,
        "merchant_not_found"
      )
      expectError(await call("DELETE", `/v1/merchants/${unknown}/settlements/crypto/stl_00000000000000000000000000`), 404, "merchant_not_found")

      const id = await server.merchant(partner.sandbox)
      const registered = await call("POST", `/v1/merchants/${id}/settlements/crypto`, {
        settlements: [{ asset: usdcEthereum, destination: walletEthereum }]
      })
      await call("DELETE", `/v1/merchants/${id}`)
      expect((await call("GET", `/v1/merchants/${id}/settlements`)).body.crypto).toHaveLength(1)
      expectError(
        await call("POST", `/v1/merchants/${id}/settlements/crypto`, { settlements: [{ asset: usdcBase, destination: walletBase }] }),
        404,
        "merchant_not_found"
      )
      const settlementId = registered.body.crypto[0].id
      expectError(await call("PUT", `/v1/merchants/${id}/settlements/crypto/${settlementId}`, { destination: otherWalletEthereum }), 404, "merchant_not_found")
      expectError(await call("DELETE", `/v1/merchants/${id}/settlements/crypto/${settlementId}`), 404, "merchant_not_found")
    })
  })

  describe("a merchant's payments", () => {
    let owner: TestPartner
    let shop: string
    let otherShop: string
    const made: Array<any> = []

    beforeAll(async () => {
      owner = await server.partner()
      shop = await server.merchant(owner.sandbox)
      otherShop = await server.merchant(owner.sandbox)
      for (let i = 0; i < 3; i++) {
        made.push(await server.payment(owner.sandbox, shop, `shop-${i}`))
        await tick()
      }
      await server.payment(owner.sandbox, otherShop, "other-0")
      await server.succeed(made[1].paymentId)
    })

    const byHeader = (merchantId: string | undefined, query = "") =>
      server.request("GET", `/v1/merchants/payments${query}`, {
        apiKey: owner.sandbox,
        headers: merchantId === undefined ? {} : { "merchant-id": merchantId }
      })
    const byPath = (merchantId: string, query = "") => server.request("GET", `/v1/merchants/${merchantId}/payments${query}`, { apiKey: owner.sandbox })
    const ids = (response: { body: any }) => response.body.data.map((p: any) => p.paymentId)

    it("GET /v1/merchants/payments lists the Merchant-Id's payments, newest first", async () => {
      const response = await byHeader(shop)
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(made.map((p) => p.paymentId).reverse())
      expect(response.body.nextCursor).toBeNull()
      expect(response.headers.get("deprecation")).toBeNull()
      expect(response.body.data[1]).toMatchObject({ status: "succeeded", merchantId: shop })
    })

    it("takes the payment filters", async () => {
      expect(ids(await byHeader(shop, "?status=succeeded"))).toEqual([made[1].paymentId])
      expect(ids(await byHeader(shop, "?sortDir=asc&limit=2"))).toEqual([made[0].paymentId, made[1].paymentId])
      expect(ids(await byHeader(shop, "?referenceId=shop-2"))).toEqual([made[2].paymentId])
      expect(ids(await byHeader(shop, "?referenceId=other-0"))).toEqual([])
      // merchantId is not one of this operation's filters: the header decides.
      expect(ids(await byHeader(shop, `?merchantId=${otherShop}`))).toHaveLength(3)
      expectError(await byHeader(shop, "?status=bogus"), 400, "invalid_params")
      expectError(await byHeader(shop, "?limit=0"), 400, "invalid_params")
    })

    it("responds 400 missing_merchant_id without the header and 404 for an unknown merchant", async () => {
      expectError(await byHeader(undefined), 400, "missing_merchant_id")
      expectError(await byHeader(""), 400, "missing_merchant_id")
      expectError(await byHeader("mer_00000000000000000000000000"), 404, "merchant_not_found")
      expectError(await byHeader("payments"), 404, "merchant_not_found")
    })

    it("is not captured by /v1/merchants/{merchantId}", async () => {
      // Were it routed as a merchant id, "payments" would be merchant_not_found (or a profile).
      const response = await byHeader(shop)
      expect(response.body).toHaveProperty("data")
      expectError(await byHeader(undefined), 400, "missing_merchant_id")
    })

    it("the deprecated GET /v1/merchants/{merchant_id}/payments answers the same, marked Deprecation: true", async () => {
      const current = await byHeader(shop, "?limit=2")
      const deprecated = await byPath(shop, "?limit=2")
      expect(deprecated.status).toBe(200)
      expect(deprecated.body).toEqual(current.body)
      expect(deprecated.headers.get("deprecation")).toBe("true")
      expect(deprecated.headers.get("link")).toBe("</v1/merchants/payments>; rel=\"successor-version\"")
      expectError(await byPath("mer_00000000000000000000000000"), 404, "merchant_not_found")
      expectError(await byPath(shop, "?cursor=x"), 400, "invalid_params")
    })

    it("still lists the payments of a deleted merchant", async () => {
      const closing = await server.merchant(owner.sandbox)
      const payment = await server.payment(owner.sandbox, closing)
      await server.request("DELETE", `/v1/merchants/${closing}`, { apiKey: owner.sandbox })
      expect(ids(await byHeader(closing))).toEqual([payment.paymentId])
    })
  })
})
