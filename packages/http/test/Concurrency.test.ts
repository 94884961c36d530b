import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { beforeAll, expect, it } from "vitest"
import { forEachDatabase, useTestServer, type TestPartner, type TestResponse, unique } from "../../../test/support/TestServer.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const statuses = (responses: ReadonlyArray<TestResponse>) =>
  responses.map((r) => `${r.status} ${r.body?.code ?? ""}`.trim()).reduce<Record<string, number>>((counts, key) => {
    counts[key] = (counts[key] ?? 0) + 1
    return counts
  }, {})

forEachDatabase("Partner API: concurrent requests", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  const count = (query: string, ...params: Array<string>) =>
    server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql.unsafe<{ readonly n: number }>(query, params)
      return rows[0]!.n
    }))

  it("50 parallel creates with one Idempotency-Key make exactly one payment, and every answer is that payment or a conflict", async () => {
    const key = unique("burst")
    const referenceId = unique("order")
    const body = { merchantId, amount: { unit: "iso4217/USD", value: "4200" }, referenceId }
    const send = () => server.request("POST", "/v1/payments", { apiKey: partner.sandbox, body, headers: { "idempotency-key": key } })
    const responses = await Promise.all(Array.from({ length: 50 }, send))

    const created = responses.filter((r) => r.status === 201)
    const others = responses.filter((r) => r.status !== 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    // While the first is in flight, a retry is a conflict (API rules §5); once it completed, a replay.
    for (const response of others) expect({ status: response.status, code: response.body.code }).toEqual({ status: 409, code: "idempotency_conflict" })
    expect(created.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
    expect(new Set(created.map((r) => r.text)).size).toBe(1)

    const retry = await send()
    expect(retry.status).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.text).toBe(created[0]!.text)

    const listed = await server.request("GET", `/v1/payments?referenceId=${referenceId}`, { apiKey: partner.sandbox })
    expect(listed.body.data.map((p: any) => p.paymentId)).toEqual([created[0]!.body.paymentId])
    expect(await count("SELECT count(*)::int AS n FROM payments WHERE reference_id = $1", referenceId)).toBe(1)
    expect(await count("SELECT count(*)::int AS n FROM outbox_events WHERE payment_id = $1 AND type = 'payment.created'", created[0]!.body.paymentId))
      .toBe(1)
  })

  it("the same key with different bodies, in parallel: one payment, the other idempotency_conflict", async () => {
    const key = unique("split")
    const bodies = [unique("order"), unique("order")].map((referenceId) => ({
      merchantId,
      amount: { unit: "iso4217/USD", value: "100" },
      referenceId
    }))
    const responses = await Promise.all(
      bodies.map((body) => server.request("POST", "/v1/payments", { apiKey: partner.sandbox, body, headers: { "idempotency-key": key } }))
    )
    expect(statuses(responses)).toEqual({ "201": 1, "409 idempotency_conflict": 1 })
    // Sequentially too: the stored body wins over any other.
    const winner = bodies[responses.findIndex((r) => r.status === 201)]!
    const loser = bodies.find((b) => b !== winner)!
    const again = await server.request("POST", "/v1/payments", { apiKey: partner.sandbox, body: loser, headers: { "idempotency-key": key } })
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: "idempotency_conflict" })
  })

  it("two parallel refunds of one payment: one 201, one 409 already_refunded", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const refund = () => server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId: payment.paymentId } })
    const responses = await Promise.all([refund(), refund()])
    expect(statuses(responses)).toEqual({ "201": 1, "409 already_refunded": 1 })
    expect(await count("SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1", payment.paymentId)).toBe(1)
  })

  it("ten parallel refunds of one payment: exactly one refund", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId: payment.paymentId } }))
    )
    expect(statuses(responses)).toEqual({ "201": 1, "409 already_refunded": 9 })
    const record = await server.request("GET", `/v1/payments/${payment.paymentId}`, { apiKey: partner.sandbox })
    expect(record.body.refund.refundId).toBe(responses.find((r) => r.status === 201)!.body.refundId)
  })

  it("twelve parallel partial refunds of one payment never refund more than was paid", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    await server.succeed(payment.paymentId)
    const body = { paymentId: payment.paymentId, amount: { unit: "iso4217/USD", value: "300" } }
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body }))
    )
    // 1250 cents paid: four refunds of 300 fit, the other eight are refused.
    expect(statuses(responses)).toEqual({ "201": 4, "409 already_refunded": 8 })
    expect(await count("SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1", payment.paymentId)).toBe(4)
    const sums = await count("SELECT (sum(value) = 12000000 AND sum(amount) = 1200)::int AS n FROM refunds WHERE payment_id = $1", payment.paymentId)
    expect(sums).toBe(1)
    expect(await count("SELECT sum(value)::int AS n FROM payouts WHERE payment_id = $1 AND kind = 'refund'", payment.paymentId)).toBe(12_000_000)
    // And the 50 cents left, raced by a full refund and another partial one: exactly one of them.
    const last = await Promise.all([
      server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId: payment.paymentId } }),
      server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { ...body, amount: { unit: "iso4217/USD", value: "50" } } })
    ])
    expect(statuses(last)).toEqual({ "201": 1, "409 already_refunded": 1 })
    expect(await count("SELECT sum(value)::int AS n FROM payouts WHERE payment_id = $1 AND kind = 'refund'", payment.paymentId)).toBe(12_500_000)
  })

  it("two parallel cancels: one cancels, the other is invalid_state; one event, one version step", async () => {
    const payment = await server.payment(partner.sandbox, merchantId)
    const cancel = () => server.request("POST", `/v1/payments/${payment.paymentId}/cancel`, { apiKey: partner.sandbox })
    const responses = await Promise.all([cancel(), cancel()])
    expect(statuses(responses)).toEqual({ "200": 1, "409 invalid_state": 1 })
    const record = await server.request("GET", `/v1/payments/${payment.paymentId}`, { apiKey: partner.sandbox })
    expect(record.body).toMatchObject({ status: "cancelled", stateVersion: 2 })
    expect(await count("SELECT count(*)::int AS n FROM outbox_events WHERE payment_id = $1 AND type = 'payment.cancelled'", payment.paymentId)).toBe(1)
  })

  it("parallel merchant creations with one name: one merchant, the rest merchant_exists", async () => {
    const name = unique("Race Shop")
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        server.request("POST", "/v1/merchants", {
          apiKey: partner.sandbox,
          body: { merchantName: name },
          headers: { "idempotency-key": unique("m") }
        }))
    )
    expect(statuses(responses)).toEqual({ "201": 1, "409 merchant_exists": 4 })
  })

  it("parallel registrations of one asset: one destination, the rest invalid_state", async () => {
    const shop = await server.merchant(partner.sandbox)
    const destinations = [
      "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "eip155:1:0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    ]
    const responses = await Promise.all(
      destinations.map((destination) =>
        server.request("POST", `/v1/merchants/${shop}/settlements/crypto`, {
          apiKey: partner.sandbox,
          body: { settlements: [{ asset: usdc, destination }] }
        })
      )
    )
    expect(statuses(responses)).toEqual({ "201": 1, "409 invalid_state": 2 })
    const listed = await server.request("GET", `/v1/merchants/${shop}/settlements`, { apiKey: partner.sandbox })
    expect(listed.body.crypto).toHaveLength(1)
  })
})
