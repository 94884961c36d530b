/**
 * The bench's report: goals (ratios measured in the same run) and per-load figures, as Markdown for
 * `BENCHMARKS.md` (between the `bench:begin` / `bench:end` markers, so the hand-written analysis
 * around them stays) and as text for the terminal.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { median, type Sample } from "./lib/load.ts"
import type { Scenario } from "./scenarios.ts"

/** CPU milliseconds per successful request, by process. */
export interface CpuPerRequest {
  /** The measured server (the service, or the baseline). */
  readonly server: number
  /** Every PostgreSQL process together. */
  readonly postgres: number
  /** The load generator (autocannon, in the bench process). */
  readonly loadgen: number
}

/** Medians of one load over the rounds. */
export interface LoadFigures {
  readonly id: string
  readonly label: string
  readonly rounds: ReadonlyArray<Sample>
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly peakRssBytes: number | undefined
  readonly cpu: CpuPerRequest | undefined
}

export const figuresOf = (
  id: string,
  label: string,
  rounds: ReadonlyArray<Sample>,
  peakRssBytes: number | undefined,
  cpu: ReadonlyArray<CpuPerRequest>
): LoadFigures => ({
  id,
  label,
  rounds,
  rps: median(rounds.map((s) => s.rps)),
  p50: median(rounds.map((s) => s.p50)),
  p99: median(rounds.map((s) => s.p99)),
  peakRssBytes,
  cpu: cpu.length === 0
    ? undefined
    : { server: median(cpu.map((c) => c.server)), postgres: median(cpu.map((c) => c.postgres)), loadgen: median(cpu.map((c) => c.loadgen)) }
})

/** Everything a report says. */
export interface Report {
  readonly date: Date
  readonly minutes: number
  readonly machine: string
  readonly command: string
  readonly settings: string
  readonly loads: ReadonlyMap<string, LoadFigures>
  readonly scenarios: ReadonlyArray<{ readonly scenario: Scenario; readonly unavailable: string | undefined }>
  readonly serviceRssPeakBytes: number
  readonly baselineRssPeakBytes: number
  readonly notes: ReadonlyArray<string>
}

/** A goal's verdict. */
export interface Goal {
  readonly name: string
  readonly target: string
  readonly measured: string
  /** `undefined` when it could not be measured (then `measured` says why). */
  readonly met: boolean | undefined
}

const cpuCount = cpus().length
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const x = (ratio: number) => `${ratio.toFixed(2)}×`
const n0 = (value: number) => value.toFixed(0)
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`

const ratioGoal = (report: Report, name: string, numerator: string, denominator: string, min: number): Goal => {
  const a = report.loads.get(numerator)
  const b = report.loads.get(denominator)
  if (a === undefined || b === undefined) return { name, target: `≥ ${min}×`, measured: "not measured in this run", met: undefined }
  const ratio = a.rps / b.rps
  return { name, target: `≥ ${min}×`, measured: `${x(ratio)} (${n0(a.rps)} vs ${n0(b.rps)} req/s)`, met: ratio >= min }
}

// Merchant status p99 while confirms run flat out vs without them (`status.service`), same rounds.
const underConfirmsGoal = (report: Report, unavailable: string | undefined): Goal => {
  const goal = { name: "status p99 under confirm load ≤ 1.5× idle", target: "≤ 1.5×" }
  if (unavailable !== undefined) return { ...goal, measured: `not yet measurable: ${unavailable}`, met: undefined }
  const idle = report.loads.get("status.service")
  const busy = report.loads.get("status.confirms")
  if (idle === undefined || busy === undefined) return { ...goal, measured: "not measured in this run", met: undefined }
  const ratio = busy.p99 / idle.p99
  return { ...goal, measured: `${x(ratio)} (p99 ${ms(busy.p99)} vs ${ms(idle.p99)})`, met: ratio <= 1.5 }
}

/** The goals, in its order. */
export const goals = (report: Report): ReadonlyArray<Goal> => {
  const unavailable = (id: string) => report.scenarios.find((s) => s.scenario.id === id)?.unavailable
  return [
    ratioGoal(report, "create ≥ 1.2× B2 (req/s)", "create.service", "create.b2", 1.2),
    ratioGoal(report, "merchant status ≥ 0.8× baseline SELECT (req/s)", "status.service", "status.baseline", 0.8),
    underConfirmsGoal(report, unavailable("status-under-confirms")),
    {
      name: "service RSS peak ≤ 250 MB",
      target: "≤ 250 MB",
      measured: mb(report.serviceRssPeakBytes),
      met: report.serviceRssPeakBytes <= 250 * 1024 * 1024
    }
  ]
}

const verdict = (goal: Goal) => (goal.met === undefined ? "—" : goal.met ? "met" : "**missed**")

const shortNames: Record<string, string> = { "create.b2": "B2", "status.baseline": "baseline SELECT", "status.service": "idle" }

const loadTable = (report: Report, ids: ReadonlyArray<string>, reference: string | undefined) => {
  const against = reference === undefined ? "—" : shortNames[reference] ?? reference
  const rows = [`| load | req/s (median) | p50 | p99 | req/s per round | vs ${against} |`, "|---|---:|---:|---:|---|---:|"]
  const ref = reference === undefined ? undefined : report.loads.get(reference)
  for (const id of ids) {
    const f = report.loads.get(id)
    if (f === undefined) continue
    const ratio = ref === undefined || ref === f ? "" : x(f.rps / ref.rps)
    rows.push(`| ${f.label} | ${n0(f.rps)} | ${ms(f.p50)} | ${ms(f.p99)} | ${f.rounds.map((s) => n0(s.rps)).join(", ")} | ${ratio} |`)
  }
  return rows
}

/** The report as Markdown (the part between the markers). */
export const markdown = (report: Report) => {
  const lines = [
    `## Latest figures`,
    ``,
    `- **Date:** ${report.date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")} (the whole run took ${report.minutes.toFixed(1)} min)`,
    `- **Machine:** ${report.machine}`,
    `- **Command:** \`${report.command}\``,
    `- **Settings:** ${report.settings}`,
    ``,
    `### Goals`,
    ``,
    `| goal | measured | target | verdict |`,
    `|---|---|---|---|`,
    ...goals(report).map((g) => `| ${g.name} | ${g.measured} | ${g.target} | ${verdict(g)} |`),
    ``
  ]
  const create = report.loads.get("create.service")
  const b2 = report.loads.get("create.b2")
  const b1 = report.loads.get("create.b1")
  if (create !== undefined) {
    lines.push(`### Create payment`, ``, ...loadTable(report, ["create.service", "create.b2", "create.b1", "create.same"], "create.b2"), ``)
    if (b2 !== undefined && b1 !== undefined) {
      lines.push(
        `Service vs B2: ${x(create.rps / b2.rps)} req/s, p50 ${x(create.p50 / b2.p50)}, p99 ${x(create.p99 / b2.p99)}. ` +
          `Service vs B1: ${x(create.rps / b1.rps)} req/s, p50 ${x(create.p50 / b1.p50)}, p99 ${x(create.p99 / b1.p99)}.`,
        ``
      )
    }
    const same = report.loads.get("create.same")
    if (same !== undefined) {
      lines.push(`Service vs its own statements by hand: ${x(create.rps / same.rps)} req/s, p99 ${x(create.p99 / same.p99)}.`, ``)
    }
  }
  const status = report.loads.get("status.service")
  const select = report.loads.get("status.baseline")
  if (status !== undefined) {
    lines.push(`### Merchant status`, ``, ...loadTable(report, ["status.service", "status.baseline", "status.same"], "status.baseline"), ``)
    if (select !== undefined) {
      lines.push(`Service vs the baseline SELECT: ${x(status.rps / select.rps)} req/s, p99 ${x(status.p99 / select.p99)}.`, ``)
    }
    const same = report.loads.get("status.same")
    if (same !== undefined) {
      lines.push(`Service vs its own statement by hand: ${x(status.rps / same.rps)} req/s, p99 ${x(status.p99 / same.p99)}.`, ``)
    }
  }
  const busy = report.loads.get("status.confirms")
  if (busy !== undefined) {
    lines.push(`### Merchant status while confirms run flat out`, ``, ...loadTable(report, ["status.service", "status.confirms"], "status.service"), ``)
    if (status !== undefined) lines.push(`Under confirm load vs idle: p50 ${x(busy.p50 / status.p50)}, p99 ${x(busy.p99 / status.p99)}.`, ``)
  }
  if (report.loads.has("options.service")) {
    lines.push(`### Payment options (3 accounts)`, ``, ...loadTable(report, ["options.service"], undefined), ``)
  }
  const withCpu = [...report.loads.values()].filter((f) => f.cpu !== undefined)
  if (withCpu.length > 0) {
    lines.push(
      `### CPU per request`,
      ``,
      `Where each request's CPU goes (milliseconds of CPU per successful request, medians over the rounds; from \`/proc\`, ` +
        `10 ms clock ticks): the measured server process, the bench's PostgreSQL server (postmaster and backends), the load ` +
        `generator. The machine has ` +
        `${cpuCount} cores for all three, so throughput is bounded by their sum.`,
      ``,
      `| load | server | PostgreSQL | load generator | sum |`,
      `|---|---:|---:|---:|---:|`,
      ...withCpu.map((f) => {
        const c = f.cpu!
        const value = (v: number) => (Number.isNaN(v) ? "n/a" : v.toFixed(3))
        return `| ${f.label} | ${value(c.server)} | ${value(c.postgres)} | ${value(c.loadgen)} | ${value(c.server + c.postgres + c.loadgen)} |`
      }),
      ``
    )
  }
  lines.push(
    `### Memory`,
    ``,
    `- Service RSS peak (\`VmHWM\` over the whole run): **${mb(report.serviceRssPeakBytes)}**; baseline: ${mb(report.baselineRssPeakBytes)}.`,
    ...[...report.loads.values()]
      .filter((f) => f.peakRssBytes !== undefined && f.id.endsWith(".service"))
      .map((f) => `- Service RSS peak while \`${f.id}\` ran: ${mb(f.peakRssBytes!)}.`),
    ``,
    `### Not yet measurable`,
    ``
  )
  const missing = report.scenarios.filter((s) => s.unavailable !== undefined)
  if (missing.length === 0) lines.push(`Nothing: every scenario was measured.`)
  for (const { scenario, unavailable } of missing) lines.push(`- ${scenario.title}: not yet measurable: ${unavailable}.`)
  if (report.notes.length > 0) lines.push(``, `### Checks`, ``, ...report.notes.map((note) => `- ${note}`))
  return lines.join("\n")
}

/** A short summary for the terminal. */
export const text = (report: Report) => {
  const lines = [`paygate bench, ${report.date.toISOString()} (${report.minutes.toFixed(1)} min)`, report.machine, ``]
  for (const f of report.loads.values()) {
    const cpu = f.cpu === undefined ? "" : `  CPU/req: server ${f.cpu.server.toFixed(2)} ms, PostgreSQL ${f.cpu.postgres.toFixed(2)} ms`
    lines.push(`  ${f.label.padEnd(58)} ${n0(f.rps).padStart(6)} req/s  p50 ${ms(f.p50).padStart(7)}  p99 ${ms(f.p99).padStart(7)}${cpu}`)
  }
  lines.push(``, `goals:`)
  for (const g of goals(report)) lines.push(`  ${g.met === undefined ? "  -   " : g.met ? "  met " : "MISSED"}  ${g.name}: ${g.measured}`)
  lines.push(`  service RSS peak ${mb(report.serviceRssPeakBytes)}, baseline ${mb(report.baselineRssPeakBytes)}`)
  for (const { scenario, unavailable } of report.scenarios) {
    if (unavailable !== undefined) lines.push(`  ${scenario.title}: not yet measurable: ${unavailable}`)
  }
  for (const note of report.notes) lines.push(`  check: ${note}`)
  return lines.join("\n")
}

const begin = "<!-- bench:begin (written by `npm run bench`; edit outside these markers) -->"
const end = "<!-- bench:end -->"

const skeleton = `# Benchmarks

Figures from \`npm run bench\`; the part between the markers below is rewritten by each run.

${begin}
${end}
`

/** Replaces the generated part of `file` (creating the file when missing). */
export const writeMarkdown = (file: string, report: Report) => {
  const current = existsSync(file) ? readFileSync(file, "utf8") : skeleton
  const from = current.indexOf(begin)
  const to = current.indexOf(end)
  const base = from === -1 || to === -1 || to < from ? `${current.trimEnd()}\n\n${begin}\n${end}\n` : current
  const start = base.indexOf(begin) + begin.length
  const stop = base.indexOf(end)
  writeFileSync(file, `${base.slice(0, start)}\n${markdown(report)}\n${base.slice(stop)}`)
}
