/**
 * The data-size scenarios: the seeded partner's database grown to each of `BENCH_SIZES` payments
 * (10k, 100k and 1M by default) and, at each size, the service started fresh and measured on
 * merchant status, create and the partner's payment listing (a first page and a page deep behind
 * a cursor). The goal compares the largest size with the smallest.
 *
 * Growing: each size's database is the previous one's copy (`CREATE DATABASE … TEMPLATE`) plus the
 * difference, written in bulk by SQL (`test/support/BulkPayments.ts`: rows of the service's shape, one
 * partner dominant, final statuses over months), then `VACUUM ANALYZE` as autovacuum would leave a
 * table at rest. Each scenario copies its size's database as the other scenarios copy the seed.
 */
import { encodeCursor } from "@paygate/domain"
import pg from "pg"
import type { LoadFigures } from "./report.ts"
import { bulkPaymentId, bulkPayments, ofMainMerchant } from "../test/support/BulkPayments.ts"
import { writeBlock } from "./lib/MarkdownBlock.ts"
import { copyDatabase, dropDatabase, log } from "./lib/processes.ts"
import { createLoad, http, type Load, type Scenario, type ScenarioDatabase, type ScenarioTemplate, serviceStatusReads, statusLoad } from "./scenarios.ts"

const positive = (text: string) => {
  const value = Number(text.trim())
  if (!Number.isInteger(value) || value <= 0) throw new Error(`BENCH_SIZES: ${text} is not a positive whole number`)
  return value
}

/** Payments in the database at each step, smallest first: `BENCH_SIZES` (comma-separated), 10k, 100k and 1M by default. */
export const sizes: ReadonlyArray<number> = (process.env.BENCH_SIZES ?? "10000,100000,1000000").split(",").map(positive)
  .sort((a, b) => a - b)

/** Rounds and seconds per run of the data-size scenarios (`BENCH_SIZE_ROUNDS`, `BENCH_SIZE_SECONDS`). */
const sizeRounds = Number(process.env.BENCH_SIZE_ROUNDS ?? "") || 3
const sizeSeconds = Number(process.env.BENCH_SIZE_SECONDS ?? "") || 4

/** Status reads rotate over this many of the main merchant's payments, spread over the whole history. */
const statusSample = 2000

/** How deep into the partner's listing the deep page starts (share of its payments, newest first). */
const deepShare = 0.9

/** 10000 → 10k, 1000000 → 1M. */
export const sizeLabel = (n: number) => (n >= 1e6 && n % 1e5 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 100 === 0 ? `${n / 1e3}k` : String(n))

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Every size's database, grown once each, in order; dropped by {@link SizeGrowth.dropAll}. */
interface SizeGrowth {
  readonly database: (seed: ScenarioTemplate, size: number) => Promise<ScenarioDatabase>
  readonly dropAll: () => Promise<void>
}

const makeGrowth = (): SizeGrowth => {
  const grown = new Map<number, ScenarioDatabase & { readonly bulk: number }>()
  // One time line for every step: row n is as old at every size.
  let now: number | undefined
  const grow = async (seed: ScenarioTemplate, size: number): Promise<ScenarioDatabase> => {
    const known = grown.get(size)
    if (known !== undefined) return known
    const smaller = [...grown.entries()].filter(([n]) => n < size).sort(([a], [b]) => b - a)[0]?.[1]
    const from = smaller?.bulk ?? 0
    const bulk = Math.max(from, size - seed.paymentIds.length)
    const started = Date.now()
    const url = await copyDatabase(smaller?.url ?? seed.url, `bench_size_${size}`)
    now ??= started
    const target = { partnerId: seed.partnerId, merchantId: seed.merchantId, mode: "sandbox", now } as const
    const listCursor = await withClient(url, async (client) => {
      for (const statement of bulkPayments(target, from, bulk)) await client.query(statement.text, [...statement.params])
      await client.query("VACUUM ANALYZE payments")
      const { rows: [count] } = await client.query<{ readonly n: string }>(
        "SELECT count(*) AS n FROM payments WHERE partner_id = $1 AND mode = 'sandbox'",
        [seed.partnerId]
      )
      const { rows: [deep] } = await client.query<{ readonly created_at: string; readonly id: string }>(
        `SELECT created_at, id FROM payments WHERE partner_id = $1 AND mode = 'sandbox'
          ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [seed.partnerId, Math.floor(Number(count!.n) * deepShare)]
      )
      return encodeCursor({ createdAt: Number(deep!.created_at), id: deep!.id })
    })
    const main = Array.from({ length: bulk }, (_, n) => n).filter(ofMainMerchant)
    const step = Math.max(1, Math.floor(main.length / statusSample))
    const paymentIds = main.length === 0 ? seed.paymentIds : main.filter((_, i) => i % step === 0).slice(0, statusSample).map(bulkPaymentId)
    log(`size ${sizeLabel(size)}: grew the database by ${bulk - from} payments in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    const database = { url, paymentIds, listCursor, bulk }
    grown.set(size, database)
    return database
  }
  return {
    database: grow,
    dropAll: async () => {
      for (const { url } of grown.values()) await dropDatabase(url).catch(() => undefined)
      grown.clear()
    }
  }
}

const growth = makeGrowth()

/** Drops the grown databases (the scenarios' copies are dropped by the run). */
export const dropSizeDatabases = growth.dropAll

/** The measures of every size, by their suffix in the load ids. */
const measures = [
  { key: "status", title: "merchant status: GET /v1/merchant/payment/:id/status" },
  { key: "create", title: "create: POST /v1/merchant/payment (Idempotency-Key)" },
  { key: "list", title: "partner listing, first page: GET /v1/payments" },
  { key: "list.deep", title: `partner listing, a page ${deepShare * 100} % deep: GET /v1/payments?cursor=…` }
] as const

const loadId = (size: number, key: string) => `size.${sizeLabel(size)}.${key}`

const listLoad = (size: number, key: "list" | "list.deep", title: string): Load => ({
  id: loadId(size, key),
  label: `${title} at ${sizeLabel(size)}`,
  system: "service",
  run: http((context) => {
    const query = key === "list" ? "?limit=20" : `?limit=20&cursor=${context.listCursor ?? ""}`
    return { url: context.service.url, method: "GET", headers: { "api-key": context.apiKey }, next: () => ({ path: `/v1/payments${query}` }) }
  })
})

const sizeScenario = (size: number): Scenario => ({
  id: `size-${sizeLabel(size)}`,
  title: `Status, create and listing with ${sizeLabel(size)} payments in the database`,
  unavailable: () => undefined,
  database: (seed) => growth.database(seed, size),
  rounds: sizeRounds,
  seconds: sizeSeconds,
  loads: [
    statusLoad(loadId(size, "status"), `${measures[0].title} at ${sizeLabel(size)}`, "service", serviceStatusReads),
    createLoad(loadId(size, "create"), `${measures[1].title} at ${sizeLabel(size)}`),
    listLoad(size, "list", measures[2].title),
    listLoad(size, "list.deep", measures[3].title)
  ]
})

/** One scenario per size, smallest first. */
export const sizeScenarios: ReadonlyArray<Scenario> = sizes.map(sizeScenario)

/** The goal: at the largest size, p50 and p99 within this factor of the smallest size's. */
const goalFactor = 1.2

/** What the data-size block reports. */
export interface SizeReport {
  readonly date: Date
  readonly minutes: number
  readonly command: string
  readonly figures: ReadonlyMap<string, LoadFigures>
  /** The sizes whose service drifted over its scenario: the goals say they are not conclusive. */
  readonly drifted: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`
const x = (ratio: number) => `${ratio.toFixed(2)}×`

/** Each measure at the largest size against the smallest: its p50 and p99 ratios and the verdict. */
export const sizeGoals = (figures: ReadonlyMap<string, LoadFigures>) => {
  const smallest = sizes[0]!
  const largest = sizes.at(-1)!
  return measures.map(({ key, title }) => {
    const base = figures.get(loadId(smallest, key))
    const top = figures.get(loadId(largest, key))
    const name = `${title}: p50 and p99 at ${sizeLabel(largest)} ≤ ${goalFactor}× those at ${sizeLabel(smallest)}`
    if (base === undefined || top === undefined) return { name, measured: "not measured", met: undefined }
    const p50 = top.p50 / base.p50
    const p99 = top.p99 / base.p99
    return {
      name,
      measured: `p50 ${x(p50)} (${ms(top.p50)} vs ${ms(base.p50)}), p99 ${x(p99)} (${ms(top.p99)} vs ${ms(base.p99)})`,
      met: p50 <= goalFactor && p99 <= goalFactor
    }
  })
}

const verdict = (met: boolean | undefined, drifted: ReadonlyArray<string>) =>
  `${met === undefined ? "not measured" : met ? "met" : "**missed**"}${
    drifted.length === 0 ? "" : `, not conclusive: the service drifted beyond 10 % in ${drifted.join(", ")}`
  }`

/** The data-size block of `BENCHMARKS.md`. */
export const sizeMarkdown = (report: SizeReport) => {
  const lines = [
    "## Data size (latest figures)",
    "",
    `- **Date:** ${report.date.toISOString().replace("T", " ").slice(0, 19)} UTC (the data-size scenarios took ${report.minutes.toFixed(1)} min, growing the databases included)`,
    `- **Command:** \`${report.command}\``,
    `- **Settings:** sizes ${sizes.map(sizeLabel).join(", ")} payments; at each size the service started fresh on a copy of that size's database; ` +
    `${sizeRounds} interleaved rounds of ${sizeSeconds} s per load after a warm-up, medians over the rounds; status reads rotate over ` +
    `${statusSample} of the main merchant's payments spread over its whole history; 20 payments per listing page`,
    "",
    "| goal | measured | target | verdict |",
    "|---|---|---|---|",
    ...sizeGoals(report.figures).map((g) => `| ${g.name} | ${g.measured} | ≤ ${goalFactor}× | ${verdict(g.met, report.drifted)} |`),
    "",
    `| measure | ${sizes.map((s) => `${sizeLabel(s)}: req/s, p50, p99`).join(" | ")} | ${sizes.slice(1).map((s) => `${sizeLabel(s)} vs ${sizeLabel(sizes[0]!)}: p50, p99`).join(" | ")} |`,
    `|---|${sizes.map(() => "---:").join("|")}|${sizes.slice(1).map(() => "---:").join("|")}|`,
    ...measures.map(({ key, title }) => {
      const at = sizes.map((s) => report.figures.get(loadId(s, key)))
      const base = at[0]
      const cells = at.map((f) => (f === undefined ? "—" : `${f.rps.toFixed(0)}, ${ms(f.p50)}, ${ms(f.p99)}`))
      const ratios = at.slice(1).map((f) => (f === undefined || base === undefined ? "—" : `${x(f.p50 / base.p50)}, ${x(f.p99 / base.p99)}`))
      return `| ${title} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`
    }),
    "",
    ...report.notes.map((note) => `- ${note}`)
  ]
  return lines.join("\n")
}

/** The data-size goals as printed at the end of a run. */
export const sizeText = (figures: ReadonlyMap<string, LoadFigures>) =>
  [
    "Data size:",
    ...measures.map(({ key, title }) =>
      `  ${title.padEnd(60)} ${
        sizes.map((s) => {
          const f = figures.get(loadId(s, key))
          return `${sizeLabel(s)}: ${f === undefined ? "—" : `${f.rps.toFixed(0)} req/s p50 ${f.p50} p99 ${f.p99}`}`
        }).join("  ")
      }`
    ),
    ...sizeGoals(figures).map((g) => `  ${g.met === undefined ? "  —   " : g.met ? "  met " : "MISSED"}  ${g.name}: ${g.measured}`)
  ].join("\n")

const begin = "<!-- bench:size:begin (written by `npm run bench`; edit outside these markers) -->"
const end = "<!-- bench:size:end -->"

/** Replaces the data-size block of `file` (appending it when missing). */
export const writeSizeMarkdown = (file: string, report: SizeReport) => writeBlock(file, begin, end, sizeMarkdown(report))
