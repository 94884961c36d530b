/**
 * Exports for the books over the partner API: the same numbers as `GET /v1/payments`, hostile
 * references exported inert (CSV quoting, formula prefix), JSON lines, bad parameters refused with
 * `invalid_params`, another tenant's records never included, and 50,000 payments streamed with
 * bounded heap growth (one page held at a time).
 */
import { Effect } from "effect"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { pglite, useTestServer } from "../support/TestServer.ts"

const from = "2000-01-01T00:00:00Z"
const to = "2100-01-01"

// A minimal RFC 4180 reader: quoted cells, doubled quotes, CRLF records.
const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let cell = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === "\"" && text[i + 1] === "\"") {
      cell += "\""
      i++
    } else if (c === "\"") {
      quoted = !quoted
    } else if (!quoted && c === ",") {
      row.push(cell)
      cell = ""
    } else if (!quoted && c === "\r" && text[i + 1] === "\n") {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ""
      i++
    } else {
      cell += c
    }
  }
  return rows
}

describe("Exports (PGlite)", () => {
  const server = useTestServer(pglite)

  const download = async (apiKey: string, path: string) => {
    const response = await server.fetch(new Request(`http://paygate.test${path}`, { headers: { "api-key": apiKey } }))
    return { status: response.status, headers: response.headers, text: await response.text() }
  }

  it("a CSV export has the same amounts, tokens, hashes and statuses as the API, hostile references inert, and no other tenant", async () => {
    const partner = await server.partner()
    const other = await server.partner()
    const merchant = await server.merchant(partner.sandbox)
    const hostile = ["=HYPERLINK(\"http://evil\")", "+1,2", "-3\r\nnext", "@SUM(A1)", "plain \"quoted\""]
    const ids: Array<string> = []
    for (const reference of hostile) {
      const id = (await server.payment(partner.sandbox, merchant, reference)).paymentId as string
      await server.succeed(id)
      ids.push(id)
    }
    const open = (await server.payment(partner.sandbox, merchant)).paymentId as string
    await server.payment(other.sandbox, await server.merchant(other.sandbox))

    const file = await download(partner.sandbox, `/v1/exports/payments?format=csv&from=${from}&to=${to}&merchantId=${merchant}`)
    expect(file.status).toBe(200)
    expect(file.headers.get("content-type")).toContain("text/csv")
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="payments-sandbox-2000-01-01-2100-01-01\.csv"$/)
    const [header, ...rows] = parseCsv(file.text)
    const at = (row: Array<string>, column: string) => row[header!.indexOf(column)]!
    expect(rows.map((r) => at(r, "id")).sort()).toEqual([...ids, open].sort())
    expect(rows.map((r) => at(r, "reference_id")).slice(0, hostile.length)).toEqual(
      hostile.map((r) => (/^[=+\-@]/.test(r) ? `'${r}` : r))
    )

    const listed = (await server.request("GET", `/v1/payments?limit=100&merchantId=${merchant}`, { apiKey: partner.sandbox })).body.data as Array<any>
    for (const payment of listed) {
      const row = rows.find((r) => at(r, "id") === payment.paymentId)!
      const exponent = payment.amount.display.decimals as number
      expect(BigInt(at(row, "fiat_amount").replace(".", ""))).toBe(BigInt(payment.amount.value))
      expect(at(row, "fiat_amount").split(".")[1]?.length ?? 0).toBe(exponent)
      expect(at(row, "fiat_currency")).toBe(payment.amount.display.assetSymbol)
      expect(at(row, "status")).toBe(payment.status)
      expect(at(row, "token_base_units")).toBe(payment.option?.value ?? "")
      expect(at(row, "token_asset")).toBe(payment.option?.asset ?? "")
      expect(at(row, "tx_hash")).toBe(payment.transaction?.hash ?? "")
      expect(at(row, "fee")).toBe("0")
      expect(at(row, "gas_paid_wei")).toBe("0")
      expect(new Date(at(row, "created_at")).getTime()).toBe(payment.createdAt * 1000 + (new Date(at(row, "created_at")).getTime() % 1000))
    }

    const lines = (await download(partner.sandbox, `/v1/exports/payments?format=jsonl&from=${from}&to=${to}&merchantId=${merchant}`)).text
      .trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(lines.map((l) => l.reference_id).slice(0, hostile.length)).toEqual(hostile)
    expect(lines).toHaveLength(ids.length + 1)
  })

  it("bad parameters are invalid_params, never 500", async () => {
    const partner = await server.partner()
    for (const query of [
      `/v1/exports/payments?format=xml&from=${from}&to=${to}`,
      `/v1/exports/payments?from=yesterday&to=${to}`,
      `/v1/exports/payments?from=2026-01-01T00:00:00%2B02:00&to=${to}`,
      `/v1/exports/payments?to=${to}`,
      `/v1/exports/payments?from=${to}&to=${from}`,
      `/v1/exports/payments?from=2026-02-31&to=${to}`
    ]) {
      const answer = await server.request("GET", query, { apiKey: partner.sandbox })
      expect(answer.status, query).toBe(400)
      expect(answer.body.error?.code ?? answer.body.code, query).toBe("invalid_params")
    }
  })

  // EXPORT_ROWS=1000000 measures a million (docs/exports.md); every run prints what it measured.
  const copies = Number(process.env.EXPORT_ROWS ?? 50_000)
  it(`${copies.toLocaleString("en")} payments stream with bounded heap growth`, async () => {
    const partner = await server.partner()
    const merchant = await server.merchant(partner.sandbox)
    const seed = (await server.payment(partner.sandbox, merchant, "bulk")).paymentId as string
    await server.succeed(seed)
    await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object(
          'id', 'pay_9' || lpad(g::text, 25, '0'), 'created_at', p.created_at + g,
          'commitment', jsonb_set(p.commitment, '{txHash}', to_jsonb('0x' || lpad(to_hex(g), 64, '0')))))).*
        FROM payments p, generate_series(1, ${copies}) g WHERE p.id = ${seed}`
    }).pipe(Effect.orDie))
    // What the stream keeps, not garbage waiting for a collection: the heap measured after a full collection.
    setFlagsFromString("--expose-gc")
    const collect = runInNewContext("gc") as () => void
    const retained = () => {
      collect()
      return process.memoryUsage().heapUsed
    }
    const before = retained()
    let peak = before
    let lines = 0
    let nextSample = 5_000
    const response = await server.fetch(new Request(`http://paygate.test/v1/exports/payments?from=${from}&to=${to}&merchantId=${merchant}`, {
      headers: { "api-key": partner.sandbox }
    }))
    expect(response.status).toBe(200)
    const decoder = new TextDecoder()
    for await (const chunk of response.body!) {
      lines += decoder.decode(chunk, { stream: true }).split("\r\n").length - 1
      if (lines >= nextSample) {
        peak = Math.max(peak, retained())
        nextSample += Math.max(5_000, Math.floor(copies / 20))
      }
    }
    console.log(`export of ${lines - 1} rows: the heap kept at most ${((peak - before) / 1048576).toFixed(1)} MB more while streaming`)
    expect(lines).toBe(copies + 2)
    // The whole file is ~20 MB of text (50,000 rows), its records several times that as objects: far less is ever kept.
    expect(peak - before).toBeLessThan(16 * 1024 * 1024)
  }, 300_000 + copies * 2)
})
