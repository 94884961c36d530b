/**
 * Buyer data collection (API rules §10) over HTTP on a real anvil chain, on PGlite and PostgreSQL:
 * options carry `collectData` at and above the partner's threshold (default 1000.00, or the one
 * the operator CLI sets), the preview version sends `fields` empty, the data collection page's
 * submission is validated with the real JSON Schema validator and stored encrypted, and a confirm
 * is refused until the paying account provided valid data (on the page or with the confirm).
 */
import { Chain, GatewayServices, SanctionsList } from "@paygate/adapters"
import { buyerDataForm, buyerDataSchema } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { expectError } from "../../../test/support/ExpectError.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"

const { anvilAccount, ChainConfig, LocalChain } = Chain

const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const sanctioned = anvilAccount(5)
const valid = { fullName: "Ada Lovelace", dob: "1815-12-10", tosConfirmed: true, porCountry: "GB", porAddress: "12 St James's Square" }

const chainScope = Effect.runSync(Scope.make())
let chain: Chain.LocalChain.LocalChainInfo

beforeAll(async () => {
  const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer(), chainScope))
  chain = Context.get(context, LocalChain.LocalChain)
}, 120_000)

afterAll(() => Effect.runPromise(Scope.close(chainScope, Exit.void)))

forEachDatabase("Buyer data collection (anvil)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(LocalChain.settingsFor(chain, 1))),
      secret: new Uint8Array(randomBytes(32)),
      sanctions: Layer.orDie(SanctionsList.layerFromText(`${sanctioned.address}\n`))
    })
  }))
  let partner: TestPartner
  let merchantId: string
  let walletKey: string

  const account = (index: number) => `${chain.chainId}:${anvilAccount(index).address}`
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.request(method, path, { apiKey: walletKey, headers, ...(body === undefined ? {} : { body }) })
  const newPayment = async (value: string, apiKey = partner.sandbox, merchant = merchantId) => {
    const response = await server.request("POST", "/v1/payments", {
      apiKey,
      body: { merchantId: merchant, amount: { unit: "iso4217/USD", value }, referenceId: `order-${randomBytes(4).toString("hex")}` }
    })
    expect(response.status).toBe(201)
    return response.body.paymentId as string
  }
  const options = (paymentId: string, accounts: ReadonlyArray<string>, headers: Record<string, string> = {}) =>
    call("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts }, headers)
  const optionOf = async (paymentId: string, index: number) => {
    const response = await options(paymentId, [account(index)])
    expect(response.status).toBe(200)
    return response.body.options[0]
  }
  const submit = (paymentId: string, body: unknown) => call("POST", `/v1/gateway/payment/${paymentId}/collect-data`, body)
  const confirm = (paymentId: string, option: any, signature: string, collectedData: unknown = null) =>
    call("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId: option.id,
      results: [{ type: "walletRpc", data: [signature] }],
      collectedData
    })
  const status = async (paymentId: string) => (await call("GET", `/v1/gateway/payment/${paymentId}/status`)).body.status

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Travel Agency")
    walletKey = await server.walletKey("sandbox")
  }, 120_000)

  it("options carry collectData at and above 1000.00, per option, and not below", async () => {
    const below = await newPayment("99999")
    const belowOptions = await options(below, [account(1)])
    expect(belowOptions.status).toBe(200)
    expect(belowOptions.body.options).toHaveLength(1)
    expect(belowOptions.body.options[0].collectData).toBeNull()

    const paymentId = await newPayment("100000")
    const response = await options(paymentId, [account(1), account(2)])
    expect(response.status).toBe(200)
    // The form names its account in its URL, so it travels per option; the payment-level one stays null.
    expect(response.body.collectData).toBeNull()
    expect(response.body.options).toHaveLength(2)
    for (const [i, option] of response.body.options.entries()) {
      expect(Object.keys(option.collectData)).toEqual(["fields", "schema", "url"])
      expect(option.collectData.schema).toEqual(buyerDataSchema)
      expect(option.collectData.schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema")
      // The deprecated list, derived from the schema (its exact content is a domain test's).
      expect(option.collectData.fields).toEqual(buyerDataForm.fields)
      expect(option.collectData.fields.map((f: any) => f.id)).toEqual(Object.keys(buyerDataSchema.properties as object))
      // `{data_collection_url}?paymentId=…&account=…`; by default this server's /collect.
      const url = new URL(option.collectData.url)
      expect(url.pathname).toBe("/collect")
      expect([...url.searchParams.keys()]).toEqual(["paymentId", "account"])
      expect(url.searchParams.get("paymentId")).toBe(paymentId)
      expect(url.searchParams.get("account")).toBe(account(i + 1))
    }
  })

  it("from 2026-02-19.preview, collectData.fields is empty; schema and url stay", async () => {
    const paymentId = await newPayment("250000")
    const stable = await options(paymentId, [account(1)], { "svc-version": "2026-02-18" })
    const preview = await options(paymentId, [account(1)], { "svc-version": "2026-02-19.preview" })
    expect(preview.status).toBe(200)
    expect(preview.headers.get("svc-version")).toBe("2026-02-19.preview")
    const [fromStable] = stable.body.options
    const [fromPreview] = preview.body.options
    expect(fromStable.collectData.fields).toHaveLength(7)
    expect(fromPreview.collectData).toEqual({ fields: [], schema: fromStable.collectData.schema, url: fromStable.collectData.url })
  })

  it("the operator sets a partner's threshold with the admin CLI; default returns to 1000.00", async () => {
    const other = await server.partner()
    const shop = await server.merchant(other.sandbox)
    const small = await newPayment("1250", other.sandbox, shop)
    expect((await optionOf(small, 1)).collectData).toBeNull()
    expect(await server.admin("partner", "threshold", "--partner", other.partnerId, "--threshold", "12.50")).toEqual({
      partnerId: other.partnerId,
      dataCollectionThreshold: "12.50"
    })
    expect((await optionOf(small, 1)).collectData).not.toBeNull()
    expect((await optionOf(await newPayment("1249", other.sandbox, shop), 1)).collectData).toBeNull()
    // Other partners keep theirs.
    expect((await optionOf(await newPayment("1250"), 1)).collectData).toBeNull()
    await expect(server.admin("partner", "threshold", "--partner", other.partnerId, "--threshold", "1e3")).rejects.toThrow(/plain unsigned decimal/)
    await expect(server.admin("partner", "threshold", "--partner", "ptn_nobody", "--threshold", "5")).rejects.toThrow(/No partner ptn_nobody/)
    expect(await server.admin("partner", "threshold", "--partner", other.partnerId, "--threshold", "default")).toEqual({
      partnerId: other.partnerId,
      dataCollectionThreshold: null
    })
    expect((await optionOf(small, 1)).collectData).toBeNull()
    expect((await optionOf(await newPayment("100000", other.sandbox, shop), 1)).collectData).not.toBeNull()
  })

  it("refuses invalid data with params_validation naming the failing fields", async () => {
    const paymentId = await newPayment("100000")
    const invalid = await submit(paymentId, {
      account: account(1),
      data: { fullName: "", dob: "1815-13-10", tosConfirmed: true, porCountry: "gb", porAddress: "London" }
    })
    expectCode(invalid, "params_validation")
    expect(invalid.body.message).toMatch(/^Buyer data is invalid: /)
    for (const field of ["fullName", "dob", "porCountry"]) expect(invalid.body.message).toContain(field)
    expect(invalid.body.message).not.toContain("1815")
    const neither = await submit(paymentId, { account: account(1), data: { fullName: "Ada", dob: "1815-12-10", tosConfirmed: true } })
    expectCode(neither, "params_validation")
    expect(neither.body.message).toContain("pobCountry is required and pobAddress is required, or porCountry is required and porAddress is required")
    const extra = await submit(paymentId, { account: account(1), data: { ...valid, nickname: "Ada" } })
    expectCode(extra, "params_validation")
    expect(extra.body.message).toContain("nickname is not allowed")
    // Still asked for: nothing was stored.
    expect((await optionOf(paymentId, 1)).collectData).not.toBeNull()
    // Malformed bodies and accounts.
    expectCode(await submit(paymentId, { account: account(1), data: "Ada" }), "invalid_params")
    expectCode(await submit(paymentId, { data: valid }), "invalid_params")
    expectCode(await submit(paymentId, { account: "not-an-account", data: valid }), "params_validation")
  })

  it("answers like options: unknown payment, state, sanctions, and payments that collect nothing", async () => {
    expectCode(await submit("pay_nothing", { account: account(1), data: valid }), "payment_not_found")
    // A sandbox payment does not exist for a live wallet key (this deployment's only chain is a test
    // network, so it has no live payments).
    const paymentId = await newPayment("100000")
    const liveWallet = await server.walletKey("live")
    const asLive = await server.request("POST", `/v1/gateway/payment/${paymentId}/collect-data`, { apiKey: liveWallet, body: { account: account(1), data: valid } })
    expectCode(asLive, "payment_not_found")
    expectCode(await submit(paymentId, { account: `${chain.chainId}:${sanctioned.address}`, data: valid }), "sanctioned_user")
    const cancelled = await newPayment("100000")
    expect((await call("POST", `/v1/gateway/payment/${cancelled}/cancel`)).status).toBe(200)
    expectCode(await submit(cancelled, { account: account(1), data: valid }), "invalid_state")
    const expired = await newPayment("100000")
    await server.expireNow(expired)
    expectCode(await submit(expired, { account: account(1), data: valid }), "payment_expired")
    const small = await newPayment("1250")
    const refused = await submit(small, { account: account(1), data: valid })
    expectCode(refused, "params_validation")
    expect(refused.body.message).toBe("This payment does not collect buyer data.")
    const headers = { "api-key": "" }
    expectCode(await server.request("POST", `/v1/gateway/payment/${paymentId}/collect-data`, { headers, body: { account: account(1), data: valid } }), "missing_auth_headers")
  })

  it("accepts valid data: that account's next options carry no collectData; the data is encrypted at rest", async () => {
    const paymentId = await newPayment("100000")
    const accepted = await submit(paymentId, { account: account(1), data: valid })
    expect(accepted.status).toBe(200)
    expect(accepted.body).toEqual({ accepted: true })
    const response = await options(paymentId, [account(1), account(2)])
    expect(response.body.options.map((o: any) => [o.account, o.collectData === null])).toEqual([[account(1), true], [account(2), false]])
    // Submitting again replaces the data (e.g. a correction); the lower-case address is the same account.
    const lower = `${chain.chainId}:${anvilAccount(1).address.toLowerCase()}`
    expect((await submit(paymentId, { account: lower, data: { ...valid, fullName: "Ada King" } })).status).toBe(200)
    const rows = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly account: string; readonly data: string }>`SELECT account, data FROM buyer_data WHERE payment_id = ${paymentId}`
    }))
    expect(rows.map((row) => row.account)).toEqual([account(1)])
    expect(rows[0]!.data).toMatch(/^v1\./)
    for (const plain of ["Ada", "King", "Lovelace", "1815", "James"]) expect(rows[0]!.data).not.toContain(plain)
  })

  it("confirm is refused with params_validation until the paying account provided valid data", async () => {
    const paymentId = await newPayment("100000")
    const option = await optionOf(paymentId, 1)
    const signature = await Chain.LocalWallet.signOption(option, anvilAccount(1).privateKey)
    const missing = await confirm(paymentId, option, signature)
    expectCode(missing, "params_validation")
    expect(missing.body.message).toMatch(/^Buyer data is required for this payment: /)
    // Another account's data does not count.
    expect((await submit(paymentId, { account: account(2), data: valid })).status).toBe(200)
    expectCode(await confirm(paymentId, option, signature), "params_validation")
    expect(await status(paymentId)).toBe("requires_action")
    // The page's submission for the paying account unblocks it.
    expect((await submit(paymentId, { account: account(1), data: valid })).status).toBe(200)
    const confirmed = await confirm(paymentId, option, signature)
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.status).toBe("processing")
  })

  it("confirm may carry the data itself as collectedData.fields; invalid fields are named", async () => {
    const paymentId = await newPayment("100000")
    const option = await optionOf(paymentId, 3)
    const signature = await Chain.LocalWallet.signOption(option, anvilAccount(3).privateKey)
    const fields = (data: Record<string, string>) => ({ fields: Object.entries(data).map(([id, value]) => ({ id, value })) })
    const invalid = await confirm(paymentId, option, signature, fields({ fullName: "Ada", dob: "10/12/1815", tosConfirmed: "false" }))
    expectCode(invalid, "params_validation")
    expect(invalid.body.message).toContain("dob must be a valid date")
    expect(invalid.body.message).toContain("tosConfirmed must be true")
    expect(await status(paymentId)).toBe("requires_action")
    const confirmed = await confirm(paymentId, option, signature, fields({ ...valid, tosConfirmed: "true" }))
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.status).toBe("processing")
    const stored = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly account: string }>`SELECT account FROM buyer_data WHERE payment_id = ${paymentId}`
    }))
    expect(stored.map((row) => row.account)).toEqual([account(3)])
  })

  it("is documented in the OpenAPI: body, answer, gateway authentication and its errors", async () => {
    const spec = (await server.request("GET", "/openapi.json")).body
    const operation = spec.paths["/v1/gateway/payment/{id}/collect-data"].post
    expect(operation.summary).toMatch(/data collection page/)
    expect(Object.keys(operation.requestBody.content)).toEqual(["application/json"])
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "403", "404", "409"]))
    expect(operation.security.length).toBeGreaterThan(0)
  })
})
