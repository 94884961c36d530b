/**
 * Refunds to an address the buyer chooses, through the API and the claim page's HTTP responses (the
 * chain configured from anvil, so that its collection address and token are known; no worker: a
 * claim's payout is looked at in the database). The browser side is test/dashboard/RefundClaimPage.test.ts.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { SettlementDecisions } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { beforeAll, expect, it } from "vitest"
import { expectError } from "../support/ExpectError.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../support/TestServer.ts"

const world = localChainForFile()
const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" }
})

forEachDatabase("Refunds to an address the buyer chooses (claim links)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(Chain.ChainConfig.layer(world().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let merchantId: string
  /** Has a crypto settlement destination for TUSDC: its payments are settled unless refunded first. */
  let settling: string

  const api = (method: string, path: string, body?: unknown, apiKey = partner.sandbox) =>
    server.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
  const caip10 = (address: string) => `${world().chain.chainId}:${address}`
  const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address
  /** A succeeded payment of 12.50 USD paid with 12.5 TUSDC by a fresh account. */
  const paid = async (merchant = merchantId) => {
    const paymentId = (await server.payment(partner.sandbox, merchant)).paymentId as string
    await server.succeed(paymentId, { account: caip10(freshAddress()), asset: world().chain.usdcAssetId, tokenAmount: 12_500_000n })
    return paymentId
  }
  const claimRefund = async (paymentId: string, value?: string) => {
    const created = await api("POST", "/v1/refunds", { paymentId, to: "claim", ...(value === undefined ? {} : { amount: { unit: "iso4217/USD", value } }) })
    expect(created.status).toBe(201)
    return created.body
  }
  const pathOf = (claimUrl: string) => new URL(claimUrl).pathname
  const query = <A extends object>(text: string, ...values: Array<unknown>) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql.unsafe<A>(text, values)
    }).pipe(Effect.orDie))
  const payoutsOf = (refundId: string) =>
    query<{ recipient: string; value: string; status: string }>("SELECT recipient, value::text AS value, status FROM payouts WHERE refund_id = $1", refundId)
  const send = (claimUrl: string, address: string) => server.request("POST", pathOf(claimUrl), form({ intent: "send", address }))

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Claim Shop")
    settling = await server.merchant(partner.sandbox, "Settling Claim Shop")
    const registered = await api("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(freshAddress()) }]
    })
    expect(registered.status).toBe(201)
  }, 120_000)

  it("a claim refund reserves its amount with no payout; a refund beyond the rest is already_refunded; the link's token is stored hashed", async () => {
    const paymentId = await paid()
    const before = Date.now()
    const refund = await claimRefund(paymentId, "500")
    expect(refund).toMatchObject({ paymentId, status: "pending", txHash: null, amount: { unit: "iso4217/USD", value: "500" }, tokenValue: "5000000" })
    expect(refund.claimUrl).toMatch(/^https?:\/\/[^/]+\/r\/[A-Za-z0-9_-]{43}$/)
    const fortnight = 14 * 86_400
    expect(refund.claimExpiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) + fortnight - 1)
    expect(refund.claimExpiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + fortnight)
    expect(await payoutsOf(refund.refundId)).toEqual([])

    // 7.50 USD left: 8.00 is refused, concurrently or not, and the rest goes to the payer.
    expectCode(await api("POST", "/v1/refunds", { paymentId, amount: { unit: "iso4217/USD", value: "800" } }), "already_refunded")
    expectCode(await api("POST", "/v1/refunds", { paymentId, to: "claim", amount: { unit: "iso4217/USD", value: "800" } }), "already_refunded")
    const rest = await api("POST", "/v1/refunds", { paymentId })
    expect([rest.status, rest.body.amount.value, rest.body.claimUrl]).toEqual([201, "750", undefined])
    expectCode(await api("POST", "/v1/refunds", { paymentId, to: "claim" }), "already_refunded")

    const token = pathOf(refund.claimUrl).split("/").at(-1)!
    const [stored] = await query<{ token_hash: string }>("SELECT token_hash FROM refund_claims WHERE refund_id = $1", refund.refundId)
    expect(stored!.token_hash).toBe(createHash("sha256").update(token).digest("hex"))
    expect(JSON.stringify(await query("SELECT refund_id, token_hash, recipient FROM refund_claims"))).not.toContain(token)
  })

  it("an Idempotency-Key replays the claim refund without its link: the token is never stored in the clear", async () => {
    const paymentId = await paid()
    const headers = { "idempotency-key": randomBytes(8).toString("hex") }
    const first = await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, headers, body: { paymentId, to: "claim" } })
    const replay = await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, headers, body: { paymentId, to: "claim" } })
    expect([first.status, replay.status]).toEqual([201, 201])
    expect(replay.body).toEqual({ ...first.body, claimUrl: "(shown only in the first response)" })
    const token = pathOf(first.body.claimUrl).split("/").at(-1)!
    expect(JSON.stringify(await query("SELECT response_body FROM idempotency_keys WHERE response_body IS NOT NULL"))).not.toContain(token)
  })

  it("an unclaimed claim refund holds its amount: the settlement sends only what it left, and the claim's payout takes the next leg", async () => {
    const paymentId = await paid(settling)
    const refund = await claimRefund(paymentId, "100")
    await server.run(Effect.provide(SettlementDecisions.use((decisions) => decisions.decideNext(10_000)), SettlementDecisions.layer))
    const legs = () => query<{ kind: string; leg: number; value: string }>("SELECT kind, leg, value::text AS value FROM payouts WHERE payment_id = $1 ORDER BY leg", paymentId)
    const rest = (12_500_000n - BigInt(refund.tokenValue)).toString()
    expect(await legs()).toEqual([{ kind: "settlement", leg: 0, value: rest }])
    expect((await send(refund.claimUrl, freshAddress())).status).toBe(200)
    expect(await legs()).toEqual([{ kind: "settlement", leg: 0, value: rest }, { kind: "refund", leg: 1, value: refund.tokenValue }])
  })

  it("concurrent claim refunds of one payment never reserve more than was paid", async () => {
    const paymentId = await paid()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api("POST", "/v1/refunds", { paymentId, to: "claim", amount: { unit: "iso4217/USD", value: "300" } }))
    )
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 409, 409])
    const [total] = await query<{ amount: string }>("SELECT sum(amount)::text AS amount FROM refunds WHERE payment_id = $1", paymentId)
    expect(total!.amount).toBe("1200")
  })

  it("the page shows the refund; a new link replaces the old one; other tenants and payer refunds cannot have one", async () => {
    const paymentId = await paid()
    const refund = await claimRefund(paymentId)
    const page = await server.request("GET", pathOf(refund.claimUrl))
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'")
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.text).toContain("Your refund from Claim Shop")
    expect(page.text).toContain("12.50 USD")
    expect(page.text).toMatch(/12\.5 TUSDC on [^<]+/)

    const reissued = await api("POST", `/v1/refunds/${refund.refundId}/claim-link`)
    expect(reissued.status).toBe(201)
    expect(reissued.body.refundId).toBe(refund.refundId)
    expect(reissued.body.claimUrl).not.toBe(refund.claimUrl)
    expect((await server.request("GET", pathOf(refund.claimUrl))).status).toBe(404)
    expect((await send(refund.claimUrl, freshAddress())).status).toBe(404)
    expect((await server.request("GET", pathOf(reissued.body.claimUrl))).status).toBe(200)

    const other = await server.partner()
    expectCode(await api("POST", `/v1/refunds/${refund.refundId}/claim-link`, undefined, other.sandbox), "payment_not_found")
    expectCode(await api("POST", `/v1/refunds/${refund.refundId}/claim-link`, undefined, partner.live), "payment_not_found")
    expectCode(await api("POST", "/v1/refunds/ref_unknown/claim-link"), "payment_not_found")
    expectCode(await api("POST", "/v1/refunds/%F0%9F%92%A5/claim-link"), "payment_not_found")
    const toPayer = await api("POST", "/v1/refunds", { paymentId: await paid() })
    expectCode(await api("POST", `/v1/refunds/${toPayer.body.refundId}/claim-link`), "payment_not_found")

    // Claimed: no new link.
    expect((await send(reissued.body.claimUrl, freshAddress())).status).toBe(200)
    expectCode(await api("POST", `/v1/refunds/${refund.refundId}/claim-link`), "invalid_state")
    expect((await server.request("GET", "/r/not-a-token")).status).toBe(404)
    expect((await server.request("GET", `/r/${"A".repeat(43)}`)).status).toBe(404)
  })

  it("an expired link is a clear 410 page that claims nothing; a new link works again", async () => {
    const refund = await claimRefund(await paid())
    await query("UPDATE refund_claims SET expires_at = $1 WHERE refund_id = $2", Date.now() - 1000, refund.refundId)
    const page = await server.request("GET", pathOf(refund.claimUrl))
    expect(page.status).toBe(410)
    expect(page.text).toContain("This refund link has expired")
    expect(page.text).toContain("Ask Claim Shop for a new link")
    expect((await send(refund.claimUrl, freshAddress())).status).toBe(410)
    expect(await payoutsOf(refund.refundId)).toEqual([])
    const reissued = await api("POST", `/v1/refunds/${refund.refundId}/claim-link`)
    expect((await send(reissued.body.claimUrl, freshAddress())).status).toBe(200)
    expect(await payoutsOf(refund.refundId)).toHaveLength(1)
  })

  it("submitted several times at once, a claim makes exactly one payout of the refund's whole value", async () => {
    const refund = await claimRefund(await paid(), "900")
    const addresses = Array.from({ length: 6 }, freshAddress)
    const answers = await Promise.all(addresses.map((address) => send(refund.claimUrl, address)))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410, 410, 410, 410])
    const winner = addresses[answers.findIndex((a) => a.status === 200)]!
    expect(answers.find((a) => a.status === 200)!.text).toContain("Refund on its way")
    expect(await payoutsOf(refund.refundId)).toEqual([{ recipient: caip10(winner), value: "9000000", status: "pending" }])
    const again = await server.request("GET", pathOf(refund.claimUrl))
    expect(again.status).toBe(410)
    expect(again.text).toContain("This refund was claimed")
    expect(again.text).toContain(winner)
  })

  it("addresses that cannot take the refund are refused with one clear line each, and nothing is claimed", async () => {
    const refund = await claimRefund(await paid())
    const good = freshAddress()
    const flipped = good.slice(0, 2) + [...good.slice(2)].map((c, i) => (i === good.slice(2).search(/[a-fA-F]/) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join("")
    const token = world().chain.usdcAssetId.split(":").at(-1)!
    const refused: ReadonlyArray<readonly [string, string]> = [
      ["0x1234", "That is not an address"],
      ["", "That is not an address"],
      ["<script>alert(1)</script>", "That is not an address"],
      [flipped, "its capital letters do not match its checksum"],
      ["0x0000000000000000000000000000000000000000", "That is the zero address"],
      [world().chain.collectionAddress, "belongs to this payment service or a token contract"],
      [token.toLowerCase(), "belongs to this payment service or a token contract"]
    ]
    for (const [address, message] of refused) {
      for (const intent of ["review", "send"]) {
        const answer = await server.request("POST", pathOf(refund.claimUrl), form({ intent, address }))
        expect([address, intent, answer.status]).toEqual([address, intent, 400])
        const alert = /<p class="alert" id="claim-error" role="alert">([^<]*)<\/p>/.exec(answer.text)?.[1] ?? ""
        expect(alert).toContain(message.replace(/'/g, "&#39;"))
        expect(answer.text).not.toContain("<script>alert")
      }
    }
    expect(await payoutsOf(refund.refundId)).toEqual([])

    // A valid address in lower case is shown back in its checksum form, to confirm.
    const review = await server.request("POST", pathOf(refund.claimUrl), form({ intent: "review", address: ` ${good.toLowerCase()} ` }))
    expect(review.status).toBe(200)
    expect(review.text).toContain(`Send 12.5 TUSDC on`)
    expect(review.text).toContain(`to ${good.slice(0, 6)}…${good.slice(-4)}?`)
    expect(review.text).toContain(`value="${good}"`)
    expect(await payoutsOf(refund.refundId)).toEqual([])
  })

  it("a claim form posted from another site is refused", async () => {
    const refund = await claimRefund(await paid())
    const answer = await server.request("POST", pathOf(refund.claimUrl), {
      ...form({ intent: "send", address: freshAddress() }),
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site", origin: "https://evil.example" }
    })
    expect(answer.status).toBe(403)
    expect(await payoutsOf(refund.refundId)).toEqual([])
  })
})
