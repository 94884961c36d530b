/**
 * The `balances` export over the partner API, against ledger entries written as the service posts
 * them (a receipt credits the merchant, its reversal undoes it, a settlement or refund leg debits
 * it): random sequences over random periods, where every row's closing is its opening plus its
 * movements and each figure is the sum of the entries a model of them expects; sandbox and live,
 * and another partner, never mix; a statement of more merchants than a page streams each once, in
 * order.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { expect, it } from "vitest"
import { forEachDatabase, useTestServer } from "../support/TestServer.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const dai = "eip155:10/erc20:0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1"
const amounts = ["opening", "received", "reversed", "settled", "refunded", "closing"] as const
const start = Date.parse("2031-03-01T00:00:00Z")
const day = 86_400_000

/** One posting to a merchant's account, as the model keeps it: `amount` as posted (a credit negative). */
interface Posted {
  readonly mode: "sandbox" | "live"
  readonly partnerId: string
  readonly merchantId: string
  readonly asset: string
  readonly kind: "received" | "reversed" | "settled" | "refunded"
  readonly at: number
  readonly amount: bigint
}

forEachDatabase("The balances export", (database) => {
  const server = useTestServer(database)
  const query = <A>(effect: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, effect).pipe(Effect.orDie))
  let sequence = 0

  /** Posts `p` as the service would: its ledger transaction (source, source id, time) against the collection account. */
  const post = (p: Posted) =>
    query((sql) =>
      Effect.gen(function*() {
        const account = (kind: string, partnerId: string | null, merchantId: string | null) =>
          sql<{ readonly id: string }>`INSERT INTO ledger_accounts (mode, kind, chain_id, asset, partner_id, merchant_id)
            VALUES (${p.mode}, ${kind}, ${p.asset.slice(0, p.asset.indexOf("/"))}, ${p.asset}, ${partnerId}, ${merchantId})
            ON CONFLICT ON CONSTRAINT ledger_accounts_once DO UPDATE SET kind = EXCLUDED.kind RETURNING id::text`
        const merchant = (yield* account("merchant", p.partnerId, p.merchantId))[0]!.id
        const collection = (yield* account("collection", null, null))[0]!.id
        const n = ++sequence
        const [source, sourceId] = p.kind === "received"
          ? ["receipt", `rcp_s${n}`]
          : p.kind === "reversed"
          ? ["receipt_reversal", `rcp_s${n}`]
          : ["payout", `pay_s${n}:${p.kind === "settled" ? "settlement" : "refund"}:0`]
        const [t] = yield* sql<{ readonly id: string }>`INSERT INTO ledger_transactions (mode, source, source_id, posted_at)
          VALUES (${p.mode}, ${source}, ${sourceId}, ${p.at}::bigint) RETURNING id::text`
        for (const [accountId, amount] of [[merchant, p.amount], [collection, -p.amount]] as const) {
          yield* sql`INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
            VALUES (${t!.id}::bigint, ${accountId}::bigint, ${p.mode}, ${p.asset}, ${amount.toString()}::numeric)`
        }
      }).pipe(sql.withTransaction)
    )

  const balances = async (apiKey: string, params: Record<string, string>, format = "jsonl") => {
    const response = await server.fetch(new Request(`http://paygate.test/v1/exports/balances?${new URLSearchParams({ format, ...params })}`, {
      headers: { "api-key": apiKey }
    }))
    const text = await response.text()
    expect(response.status, text).toBe(200)
    return { headers: response.headers, text }
  }
  const rowsOf = (text: string): Array<Record<string, string | null>> => text.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

  /** What the model's entries say for one key's partner and mode over [from, to), as the export's base-unit columns. */
  const expected = (posted: ReadonlyArray<Posted>, who: { partnerId: string; mode: string }, from: number, to: number, merchantId?: string) => {
    const byAccount = new Map<string, Record<(typeof amounts)[number], bigint> & { entries: number }>()
    for (const p of posted) {
      if (p.partnerId !== who.partnerId || p.mode !== who.mode || p.at >= to || (merchantId !== undefined && p.merchantId !== merchantId)) continue
      const key = `${p.merchantId}|${p.asset}`
      const sums = byAccount.get(key) ?? { opening: 0n, received: 0n, reversed: 0n, settled: 0n, refunded: 0n, closing: 0n, entries: 0 }
      if (p.at < from) sums.opening -= p.amount
      else {
        sums[p.kind] -= p.amount
        sums.entries++
      }
      sums.closing -= p.amount
      byAccount.set(key, sums)
    }
    return [...byAccount.entries()]
      .filter(([, s]) => s.opening !== 0n || s.entries > 0)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, s]) => {
        const [merchant, asset] = key.split("|")
        return { merchant_id: merchant, token_asset: asset, ...Object.fromEntries(amounts.map((a) => [`${a}_base_units`, s[a].toString()])) }
      })
  }
  const baseUnits = (row: Record<string, string | null>) => ({
    merchant_id: row.merchant_id,
    token_asset: row.token_asset,
    ...Object.fromEntries(amounts.map((a) => [`${a}_base_units`, row[`${a}_base_units`]]))
  })

  it("closing is opening plus the period's movements, each the model's sum, in random sequences and periods; modes and partners apart", async () => {
    const posting = fc.record({
      merchant: fc.nat(2),
      asset: fc.constantFrom(usdc, dai),
      kind: fc.constantFrom("received" as const, "received" as const, "reversed" as const, "settled" as const, "refunded" as const),
      value: fc.bigInt({ min: 1n, max: 10n ** 24n }),
      after: fc.integer({ min: 0, max: 3 * day }),
      // Noise the statement must leave out: the live mode of the same merchants, another partner's.
      owner: fc.constantFrom("sandbox", "sandbox", "sandbox", "live", "other")
    })
    await fc.assert(
      fc.asyncProperty(fc.array(posting, { minLength: 1, maxLength: 14 }), fc.nat(1_000), fc.nat(1_000), fc.boolean(), async (steps, a, b, oneMerchant) => {
        const partner = await server.partner()
        const other = await server.partner()
        const merchants = [await server.merchant(partner.sandbox), await server.merchant(partner.sandbox), await server.merchant(partner.sandbox)]
        const foreign = await server.merchant(other.sandbox)
        const posted: Array<Posted> = []
        let at = start
        for (const s of steps) {
          at += s.after
          const p: Posted = {
            mode: s.owner === "live" ? "live" : "sandbox",
            partnerId: s.owner === "other" ? other.partnerId : partner.partnerId,
            merchantId: s.owner === "other" ? foreign : merchants[s.merchant]!,
            asset: s.asset,
            kind: s.kind,
            at,
            // As posted: what arrives is a credit, what is undone or paid out a debit.
            amount: s.kind === "received" ? -s.value : s.value
          }
          await post(p)
          posted.push(p)
        }
        // A period cut anywhere around the postings, `to` strictly after `from`.
        const span = at - start + 2 * day
        const from = start - day + Math.floor((Math.min(a, b) / 1_000) * span)
        const to = Math.max(from + 1, start - day + Math.floor((Math.max(a, b) / 1_000) * span))
        const merchantId = oneMerchant ? merchants[0] : undefined
        const keys = [
          { key: partner.sandbox, partnerId: partner.partnerId, mode: "sandbox", merchantId },
          { key: partner.live, partnerId: partner.partnerId, mode: "live", merchantId },
          { key: other.sandbox, partnerId: other.partnerId, mode: "sandbox", merchantId: undefined }
        ]
        for (const who of keys) {
          const period = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), ...(who.merchantId === undefined ? {} : { merchantId: who.merchantId }) }
          const rows = rowsOf((await balances(who.key, period)).text)
          for (const row of rows) {
            const sum = ["received", "reversed", "settled", "refunded"].reduce((total, m) => total + BigInt(row[`${m}_base_units`]!), BigInt(row.opening_base_units!))
            expect(BigInt(row.closing_base_units!)).toBe(sum)
            expect(row.network).toBe(row.token_asset!.slice(0, row.token_asset!.indexOf("/")))
          }
          expect(rows.map(baseUnits)).toEqual(expected(posted, who, from, to, who.merchantId))
        }
      }),
      { numRuns: 25 }
    )
  }, 240_000)

  it("a negative balance stays a number in CSV, a token the service does not know has no whole-token cells, and bad periods are invalid_params", async () => {
    const partner = await server.partner()
    const merchant = await server.merchant(partner.sandbox)
    await post({ mode: "sandbox", partnerId: partner.partnerId, merchantId: merchant, asset: usdc, kind: "received", at: start, amount: -1_250_000n })
    await post({ mode: "sandbox", partnerId: partner.partnerId, merchantId: merchant, asset: usdc, kind: "settled", at: start + day, amount: 1_250_000n })
    // A reorganisation removes the transfer after it was settled: the merchant owes it back.
    await post({ mode: "sandbox", partnerId: partner.partnerId, merchantId: merchant, asset: usdc, kind: "reversed", at: start + 2 * day, amount: 1_250_000n })
    const csv = await balances(partner.sandbox, { from: "2031-03-02", to: "2031-04-01" }, "csv")
    expect(csv.headers.get("content-type")).toContain("text/csv")
    expect(csv.headers.get("content-disposition")).toBe("attachment; filename=\"balances-sandbox-2031-03-02-2031-04-01.csv\"")
    const [header, row, ...rest] = csv.text.split("\r\n")
    expect(rest).toEqual([""])
    expect(header).toBe(
      "merchant_id,token_asset,network,from,to,opening,opening_base_units,received,received_base_units,reversed,reversed_base_units," +
        "settled,settled_base_units,refunded,refunded_base_units,closing,closing_base_units"
    )
    expect(row).toBe(
      `${merchant},${usdc},eip155:1,2031-03-02T00:00:00.000Z,2031-04-01T00:00:00.000Z,,1250000,,0,,-1250000,,-1250000,,0,,-1250000`
    )
    for (const q of ["from=2031-03-02&to=2031-03-02", "from=2031-13-01&to=2031-04-01", "from=2031-03-01T00:00:00%2B01:00&to=2031-04-01", "to=2031-04-01"]) {
      const answer = await server.request("GET", `/v1/exports/balances?${q}`, { apiKey: partner.sandbox })
      expect(answer.status, q).toBe(400)
      expect(answer.body.code ?? answer.body.error?.code, q).toBe("invalid_params")
    }
  })

  it("an entry of a kind no column holds breaks the download off rather than send a row that does not add up", async () => {
    const partner = await server.partner()
    const merchant = await server.merchant(partner.sandbox)
    await post({ mode: "sandbox", partnerId: partner.partnerId, merchantId: merchant, asset: usdc, kind: "received", at: start, amount: -7n })
    await query((sql) =>
      Effect.gen(function*() {
        // A movement the statement does not classify (no posting rule credits a merchant from an opening).
        const [t] = yield* sql<{ readonly id: string }>`INSERT INTO ledger_transactions (mode, source, source_id, posted_at)
          VALUES ('sandbox', 'opening', ${`odd_${merchant}`}, ${start + 1}::bigint) RETURNING id::text`
        yield* sql`INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
          SELECT ${t!.id}::bigint, id, 'sandbox', asset, CASE kind WHEN 'merchant' THEN -3 ELSE 3 END FROM ledger_accounts
          WHERE mode = 'sandbox' AND asset = ${usdc} AND (kind = 'collection' OR (kind = 'merchant' AND merchant_id = ${merchant}))`
      }).pipe(sql.withTransaction)
    )
    const broken = async (format: string) => {
      try {
        const response = await server.fetch(new Request(`http://paygate.test/v1/exports/balances?format=${format}&from=2031-03-01&to=2031-04-01`, {
          headers: { "api-key": partner.sandbox }
        }))
        const text = await response.text()
        return response.status !== 200 || text.includes(merchant) ? `answered ${response.status}: ${text}` : "broken"
      } catch {
        return "broken"
      }
    }
    expect(await broken("csv")).toBe("broken")
    expect(await broken("jsonl")).toBe("broken")
  })

  it("more merchants than a page stream each once, in order", async () => {
    const partner = await server.partner()
    const count = 2_345
    await query((sql) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO ledger_accounts (mode, kind, chain_id, asset, partner_id, merchant_id)
          SELECT 'sandbox', 'merchant', 'eip155:1', ${usdc}, ${partner.partnerId}, 'mer_page' || lpad(n::text, 5, '0')
          FROM generate_series(1, ${count}) n`
        const [t] = yield* sql<{ readonly id: string }>`INSERT INTO ledger_transactions (mode, source, source_id, posted_at)
          VALUES ('sandbox', 'receipt', ${`rcp_page_${partner.partnerId}`}, ${start}::bigint) RETURNING id::text`
        yield* sql`INSERT INTO ledger_accounts (mode, kind, chain_id, asset) VALUES ('sandbox', 'collection', 'eip155:1', ${usdc})
          ON CONFLICT ON CONSTRAINT ledger_accounts_once DO NOTHING`
        yield* sql`INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
          SELECT ${t!.id}::bigint, id, 'sandbox', asset, -right(merchant_id, 5)::numeric FROM ledger_accounts
          WHERE partner_id = ${partner.partnerId} AND kind = 'merchant'
          UNION ALL
          SELECT ${t!.id}::bigint, id, 'sandbox', asset, ${String((count * (count + 1)) / 2)}::numeric FROM ledger_accounts
          WHERE mode = 'sandbox' AND kind = 'collection' AND asset = ${usdc}`
      }).pipe(sql.withTransaction)
    )
    const rows = rowsOf((await balances(partner.sandbox, { from: "2031-01-01", to: "2031-06-01" })).text)
    expect(rows.map((r) => [r.merchant_id, r.received_base_units])).toEqual(
      Array.from({ length: count }, (_, i) => [`mer_page${String(i + 1).padStart(5, "0")}`, String(i + 1)])
    )
  }, 120_000)
})
