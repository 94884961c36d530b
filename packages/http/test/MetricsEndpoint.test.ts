import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { beforeAll, describe, expect, it } from "vitest"
import { ProcessMetrics } from "@paygate/observability"
import { forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"

// GET /metrics: the Prometheus text format (0.0.4), request counters and latency histograms by
// route template and status, payments by status and the outbox backlog read from the database.
// The registry is per process and test servers share it, so counters are compared before/after.

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

interface Exposition {
  readonly types: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelPair = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/

/** A strict reader of the text format: throws on any line it does not understand. */
const parse = (text: string): Exposition => {
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  expect(text.endsWith("\n")).toBe(true)
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) continue
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type !== null) {
      expect(types.has(type[1]!), `one TYPE line per family (${type[1]})`).toBe(false)
      types.set(type[1]!, type[2]!)
      continue
    }
    const sample = /^([^{\s]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (sample === null) throw new Error(`not a sample line: ${line}`)
    const [, name, labelText, value] = sample
    expect(name).toMatch(metricName)
    const labels: Record<string, string> = {}
    if (labelText !== undefined && labelText !== "") {
      for (const pair of labelText.split(/,(?=[a-zA-Z_][a-zA-Z0-9_]*=")/)) {
        const match = labelPair.exec(pair)
        if (match === null) throw new Error(`bad label ${pair} in ${line}`)
        labels[match[1]!] = match[2]!
      }
    }
    const number = value === "+Inf" ? Infinity : value === "-Inf" ? -Infinity : Number(value)
    expect(Number.isNaN(number) && value !== "NaN", `numeric value in ${line}`).toBe(false)
    samples.push({ name: name!, labels, value: number })
  }
  return { types, samples }
}

const find = (exposition: Exposition, name: string, labels: Record<string, string>) =>
  exposition.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

const valueOf = (exposition: Exposition, name: string, labels: Record<string, string>) => find(exposition, name, labels)?.value ?? 0

forEachDatabase("GET /metrics", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  const scrape = async () => {
    const response = await server.request("GET", "/metrics")
    expect(response.status).toBe(200)
    return { response, exposition: parse(response.text) }
  }
  const create = (referenceId: string) =>
    server.request("POST", "/v1/merchant/payment", {
      apiKey: partner.sandbox,
      headers: { "merchant-id": merchantId },
      body: { amount: { unit: "iso4217/USD", value: "1050" }, referenceId }
    })

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox)
  })

  it("answers the Prometheus text format, one TYPE per family", async () => {
    const { exposition, response } = await scrape()
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    expect(exposition.types.get("paygate_http_requests_total")).toBe("counter")
    expect(exposition.types.get("paygate_http_request_duration_seconds")).toBe("histogram")
    expect(exposition.types.get("paygate_payments")).toBe("gauge")
    expect(exposition.types.get("paygate_outbox_backlog")).toBe("gauge")
    expect(exposition.types.get("paygate_webhook_deliveries_total")).toBe("counter")
    expect(exposition.types.get("process_resident_memory_bytes")).toBe("gauge")
    expect(valueOf(exposition, "process_resident_memory_bytes", {})).toBeGreaterThan(1e6)
    expect(valueOf(exposition, "paygate_scrape_database_ok", {})).toBe(1)
    for (const sample of exposition.samples) {
      const family = sample.name.replace(/_(bucket|sum|count)$/, "")
      expect(exposition.types.has(sample.name) || exposition.types.has(family), `${sample.name} has a TYPE`).toBe(true)
    }
  })

  it("counts requests by method, route template and status, with latency histograms", async () => {
    const before = (await scrape()).exposition
    const created = await create("metrics-1")
    expect(created.status).toBe(200)
    const paymentId = created.body.paymentId as string
    for (let i = 0; i < 2; i++) {
      const status = await server.request("GET", `/v1/merchant/payment/${paymentId}/status`, {
        apiKey: partner.sandbox,
        headers: { "merchant-id": merchantId }
      })
      expect(status.status).toBe(200)
    }
    expect((await server.request("GET", "/v1/merchant/payment/pay_unknown/status", { headers: { "merchant-id": merchantId } })).status).toBe(401)
    expect((await server.request("GET", "/no/such/route")).status).toBe(404)
    const after = (await scrape()).exposition

    const delta = (labels: Record<string, string>) =>
      valueOf(after, "paygate_http_requests_total", labels) - valueOf(before, "paygate_http_requests_total", labels)
    expect(delta({ method: "POST", route: "/v1/merchant/payment", status: "200" })).toBe(1)
    expect(delta({ method: "GET", route: "/v1/merchant/payment/:id/status", status: "200" })).toBe(2)
    expect(delta({ method: "GET", route: "/v1/merchant/payment/:id/status", status: "401" })).toBe(1)
    expect(delta({ method: "GET", route: "unmatched", status: "404" })).toBe(1)
    // The scrape before this one counted itself too.
    expect(delta({ method: "GET", route: "/metrics", status: "200" })).toBe(1)
    // Raw paths never become labels.
    expect(after.samples.some((s) => s.labels.route?.includes(paymentId) || s.labels.route === "/no/such/route")).toBe(false)

    const histogram = { method: "GET", route: "/v1/merchant/payment/:id/status", status: "200" }
    const count = valueOf(after, "paygate_http_request_duration_seconds_count", histogram)
    expect(count - valueOf(before, "paygate_http_request_duration_seconds_count", histogram)).toBe(2)
    expect(valueOf(after, "paygate_http_request_duration_seconds_bucket", { ...histogram, le: "+Inf" })).toBe(count)
    expect(valueOf(after, "paygate_http_request_duration_seconds_sum", histogram)).toBeGreaterThan(0)
    const buckets = after.samples
      .filter((s) => s.name === "paygate_http_request_duration_seconds_bucket" && Object.entries(histogram).every(([k, v]) => s.labels[k] === v))
      .map((s) => s.value)
    expect(buckets.length).toBeGreaterThan(5)
    expect([...buckets].sort((a, b) => a - b)).toEqual(buckets)
  })

  it("reads payments by status and the outbox backlog from the database", async () => {
    await create("metrics-2")
    const waiting = await create("metrics-3")
    await server.process(waiting.body.paymentId)
    const expired = await create("metrics-4")
    await server.expireNow(expired.body.paymentId)
    const counts = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ readonly processing: string | number; readonly backlog: string | number }>`
        SELECT (SELECT count(*) FROM payments WHERE status = 'processing' AND mode = 'sandbox') AS processing,
          (SELECT count(*) FROM outbox_events WHERE processed_at IS NULL) AS backlog`
      return { processing: Number(row!.processing), backlog: Number(row!.backlog) }
    }))
    const { exposition } = await scrape()
    expect(valueOf(exposition, "paygate_payments", { status: "processing", mode: "sandbox" })).toBe(counts.processing)
    expect(valueOf(exposition, "paygate_payments", { status: "expired", mode: "sandbox" })).toBeGreaterThanOrEqual(1)
    expect(valueOf(exposition, "paygate_payments", { status: "requires_action", mode: "sandbox" })).toBeGreaterThanOrEqual(2)
    expect(find(exposition, "paygate_payments", { status: "succeeded", mode: "live" })?.value).toBe(0)
    expect(valueOf(exposition, "paygate_outbox_backlog", {})).toBe(counts.backlog)
    expect(counts.backlog).toBeGreaterThanOrEqual(4)
    expect(valueOf(exposition, "paygate_outbox_oldest_age_seconds", {})).toBeGreaterThanOrEqual(0)
  })

  describe("event counters", () => {
    it("exports webhook outcomes from 0 and counts chain RPC errors by chain, operation and failure", async () => {
      const before = (await scrape()).exposition
      for (const outcome of ["delivered", "failed", "abandoned"]) {
        expect(find(before, "paygate_webhook_deliveries_total", { outcome }), outcome).toBeDefined()
      }
      await Effect.runPromise(Effect.all([
        ProcessMetrics.recordWebhookDelivery("delivered"),
        ProcessMetrics.recordChainRpcError("eip155:31337", "eth_getTransactionReceipt", "unavailable")
      ]))
      const after = (await scrape()).exposition
      expect(
        valueOf(after, "paygate_webhook_deliveries_total", { outcome: "delivered" }) -
          valueOf(before, "paygate_webhook_deliveries_total", { outcome: "delivered" })
      ).toBe(1)
      const labels = { chain_id: "eip155:31337", operation: "eth_getTransactionReceipt", failure: "unavailable" }
      expect(valueOf(after, "paygate_chain_rpc_errors_total", labels) - valueOf(before, "paygate_chain_rpc_errors_total", labels)).toBe(1)
    })
  })
})
