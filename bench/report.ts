/**
 * The bench's report: goals (ratios measured in the same run) and per-load figures, as Markdown for
 * `BENCHMARKS.md` (between the `bench:begin` / `bench:end` markers, so the hand-written analysis
 * around them stays) and as text for the terminal.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { median, type Sample } from "./lib/load.ts"
import type { Scenario, System } from "./scenarios.ts"

/** CPU milliseconds per successful request, by process. */
export interface CpuPerRequest {
  /** The measured server (the service, the floor or the raw baseline). */
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

/** One run of a canary: req/s, and the system's CPU milliseconds per request. */
export interface CanaryRun {
  readonly rps: number
  readonly cpuMs: number
}

/** One system's canary in one scenario: its status load before and after the rounds. */
export interface CanaryFigures {
  readonly scenario: string
  readonly system: System
  readonly start: CanaryRun
  readonly end: CanaryRun
}

/**
 * A canary's change over its scenario: of the system's CPU per request (+0.1 = each request costs
 * 10 % more at the end), which a decaying client raises and which other work on the shared machine
 * moves far less than req/s; of req/s (inverted, so + is slower) when the CPU could not be read.
 */
export const driftOf = (canary: CanaryFigures) =>
  Number.isFinite(canary.start.cpuMs) && Number.isFinite(canary.end.cpuMs) && canary.start.cpuMs > 0
    ? canary.end.cpuMs / canary.start.cpuMs - 1
    : canary.start.rps / canary.end.rps - 1

/** Beyond this, a system drifted and ratios against it are not conclusive. */
export const driftLimit = 0.1

/** Everything a report says. */
export interface Report {
  readonly date: Date
  readonly minutes: number
  readonly machine: string
  readonly command: string
  readonly settings: string
  readonly loads: ReadonlyMap<string, LoadFigures>
  readonly scenarios: ReadonlyArray<{ readonly scenario: Scenario; readonly unavailable: string | undefined }>
  readonly canaries: ReadonlyArray<CanaryFigures>
  /** `VmHWM` of each system, the largest over the scenarios (0: not started). */
  readonly rssPeakBytes: Record<System, number>
  readonly notes: ReadonlyArray<string>
  /** Confirms accepted per second beside the service's status load under confirms (median of its rounds). */
  readonly confirmsAccepted: number | undefined
  /** The loads under confirms in whose rounds the prepared confirms ran out (their p99 is not under confirms throughout). */
  readonly confirmsRanOut: ReadonlyArray<string>
}

/** A goal's verdict. */
export interface Goal {
  readonly name: string
  readonly target: string
  readonly measured: string
  /** `undefined` when it could not be measured (then `measured` says why). */
  readonly met: boolean | undefined
  /** Set when the system measured against drifted beyond {@link driftLimit} in that scenario. */
  readonly drifted?: string | undefined
}

const cpuCount = cpus().length
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const x = (ratio: number) => `${ratio.toFixed(2)}×`
const n0 = (value: number) => value.toFixed(0)
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`
const percent = (value: number) => `${value >= 0 ? "+" : "−"}${Math.abs(100 * value).toFixed(0)} %`

const systemNames: Record<System, string> = { service: "service", floor: "floor", raw: "raw baseline" }

/** Why ratios against `system` in `scenario` are not conclusive, if they are not. */
const driftOfReference = (report: Report, scenario: string, system: System) => {
  const canary = report.canaries.find((c) => c.scenario === scenario && c.system === system)
  if (canary === undefined) return undefined
  const drift = driftOf(canary)
  return Math.abs(drift) > driftLimit ? `the ${systemNames[system]}'s CPU per request drifted ${percent(drift)} over the scenario` : undefined
}

const ratioGoal = (
  report: Report,
  name: string,
  numerator: string,
  denominator: string,
  min: number,
  reference: { readonly scenario: string; readonly system: System }
): Goal => {
  const a = report.loads.get(numerator)
  const b = report.loads.get(denominator)
  if (a === undefined || b === undefined) return { name, target: `≥ ${min}×`, measured: "not measured in this run", met: undefined }
  const ratio = a.rps / b.rps
  const measured = `${x(ratio)} (${n0(a.rps)} vs ${n0(b.rps)} req/s)`
  // req/s counts successes over the whole round: a load whose requests failed (a confirm load whose
  // prepared confirms ran out) is understated by an unknown amount, so the ratio decides nothing.
  const failing = [a, b].filter((load) => load.rounds.some((round) => round.non2xx + round.errors > 0)).map((load) => `\`${load.id}\``)
  if (failing.length > 0) return { name, target: `≥ ${min}×`, measured: `${measured}; no verdict: ${failing.join(" and ")} had failed requests (see the checks)`, met: undefined }
  return {
    name,
    target: `≥ ${min}×`,
    measured,
    met: ratio >= min,
    drifted: driftOfReference(report, reference.scenario, reference.system)
  }
}

/** A system's status p99 while confirms run flat out against its idle p99 in the same rounds, if both ran. */
const confirmRatios = (report: Report, busyId: string, idleId: string) => {
  const idle = report.loads.get(idleId)
  const busy = report.loads.get(busyId)
  return idle === undefined || busy === undefined ? undefined : { idle, busy, p50: busy.p50 / idle.p50, p99: busy.p99 / idle.p99 }
}

// Merchant status p99 while confirms run flat out vs without them, same rounds. The floor's own ratio under the
// same confirms is what the machine's sharing alone costs: the service may add a tenth to it, and never pass 2×.
const underConfirmsGoal = (report: Report): Goal => {
  const goal = {
    name: "status p99 while confirms run flat out, vs idle",
    target: "≤ the floor's ratio × 1.1, and ≤ 2×"
  }
  const unavailable = report.scenarios.find((s) => s.unavailable?.startsWith("status.confirms") === true)?.unavailable
  if (unavailable !== undefined) return { ...goal, measured: `not yet measurable: ${unavailable}`, met: undefined }
  const service = confirmRatios(report, "status.confirms", "confirms.idle.service")
  if (service === undefined) return { ...goal, measured: "not measured in this run", met: undefined }
  const floor = confirmRatios(report, "status.confirms.floor", "confirms.idle.floor")
  // A round whose confirms ran out measured part of its p99 without them: no verdict on it.
  const ranOut = report.confirmsRanOut.length === 0
    ? ""
    : `; no verdict: the prepared confirms ran out during a round of ${report.confirmsRanOut.join(" and ")} (raise BENCH_CONFIRMS)`
  return {
    ...goal,
    measured: `${x(service.p99)} (p99 ${ms(service.busy.p99)} vs ${ms(service.idle.p99)})` +
      (floor === undefined ? "; the floor's not measured in this run" : `; the floor's under the same confirms: ${x(floor.p99)} (p99 ${ms(floor.busy.p99)} vs ${ms(floor.idle.p99)})`) +
      ranOut,
    met: floor === undefined || ranOut !== "" ? undefined : service.p99 <= floor.p99 * 1.1 && service.p99 <= 2,
    drifted: driftOfReference(report, "confirms", "service")
  }
}

// The service's memory: under 250 MB at its peak, with 25 MB to spare (a peak just under the limit is one burst from it).
const rssLimit = 250 * 1024 * 1024
const rssMargin = 25 * 1024 * 1024

/** The issue's goals, in its order (the webhook drain's are in its own block, `webhooks.ts`). */
export const goals = (report: Report): ReadonlyArray<Goal> => [
  ratioGoal(report, "merchant status vs the floor (req/s)", "status.service", "status.floor", 0.9, { scenario: "status", system: "floor" }),
  ratioGoal(report, "merchant status vs the raw SELECT (req/s), stretch", "status.service", "status.baseline", 1.0, {
    scenario: "status",
    system: "raw"
  }),
  ratioGoal(report, "create vs the floor doing the same statements (req/s)", "create.service", "create.floor", 0.9, {
    scenario: "create",
    system: "floor"
  }),
  ratioGoal(report, "create vs B2 (req/s), stretch", "create.service", "create.b2", 1.2, { scenario: "create", system: "raw" }),
  underConfirmsGoal(report),
  ratioGoal(report, "confirms per second vs a plain confirm pipeline (same checks, statements, write and queue; no framework)", "confirms.service", "confirms.plain", 0.9, {
    scenario: "confirm_rate",
    system: "raw"
  }),
  {
    name: "service RSS peak (every scenario)",
    target: "≤ 250 MB with ≥ 25 MB margin",
    measured: report.rssPeakBytes.service === 0
      ? "not measured in this run"
      : `${mb(report.rssPeakBytes.service)} (margin ${mb(rssLimit - report.rssPeakBytes.service)})`,
    met: report.rssPeakBytes.service === 0 ? undefined : report.rssPeakBytes.service <= rssLimit - rssMargin
  }
]

const verdict = (goal: Goal) => {
  const said = goal.met === undefined ? "—" : goal.met ? "met" : "**missed**"
  return goal.drifted === undefined ? said : `${said}, not conclusive: ${goal.drifted}`
}

const shortNames: Record<string, string> = {
  "create.floor": "floor",
  "create.b2": "B2",
  "status.floor": "floor",
  "status.pipeline": "plain pipeline",
  "status.baseline": "raw SELECT",
  "confirms.idle.service": "idle",
  "confirms.plain": "plain confirm"
}

const loadTable = (report: Report, ids: ReadonlyArray<string>, references: ReadonlyArray<string>) => {
  const refs = references.map((id) => report.loads.get(id)).filter((f) => f !== undefined)
  const rows = [
    `| load | req/s (median) | p50 | p99 | req/s per round |${refs.map((r) => ` vs ${shortNames[r.id] ?? r.id} |`).join("")}`,
    `|---|---:|---:|---:|---|${refs.map(() => "---:|").join("")}`
  ]
  for (const id of ids) {
    const f = report.loads.get(id)
    if (f === undefined) continue
    const ratios = refs.map((ref) => (ref === f ? " |" : ` ${x(f.rps / ref.rps)} |`)).join("")
    rows.push(`| ${f.label} | ${n0(f.rps)} | ${ms(f.p50)} | ${ms(f.p99)} | ${f.rounds.map((s) => n0(s.rps)).join(", ")} |${ratios}`)
  }
  return rows
}

const canaryTable = (report: Report) => [
  `| scenario | system | req/s at the start | at the end | CPU ms per request at the start | at the end | drift |`,
  `|---|---|---:|---:|---:|---:|---:|`,
  ...report.canaries.map((c) => {
    const drift = driftOf(c)
    const mark = Math.abs(drift) > driftLimit ? ` **(beyond ${100 * driftLimit} %)**` : ""
    return `| ${c.scenario} | ${systemNames[c.system]} | ${n0(c.start.rps)} | ${n0(c.end.rps)} | ${c.start.cpuMs.toFixed(3)} | ` +
      `${c.end.cpuMs.toFixed(3)} | ${percent(drift)}${mark} |`
  })
]

/**
 * A confirm's whole life in CPU: its request, the executor, the watcher and settlement in the service's
 * process (the worker runs in it) and in PostgreSQL. Derived from the status load under confirms: what
 * each status read cost above an idle one, times the status reads per confirm accepted. The chain node's
 * own CPU is not in it.
 */
const confirmLife = (report: Report) => {
  const busy = report.loads.get("status.confirms")?.cpu
  const idle = report.loads.get("confirms.idle.service")?.cpu
  const reads = report.loads.get("status.confirms")?.rps
  const confirms = report.confirmsAccepted
  if (busy === undefined || idle === undefined || reads === undefined || confirms === undefined || confirms <= 0) return undefined
  const readsPerConfirm = reads / confirms
  return {
    server: (busy.server - idle.server) * readsPerConfirm,
    postgres: (busy.postgres - idle.postgres) * readsPerConfirm,
    readsPerConfirm,
    confirms
  }
}

const confirmLifeLine = (report: Report) => {
  const life = confirmLife(report)
  return life === undefined
    ? undefined
    : `A confirm's whole life (its request, the executor, the watcher, settlement; the service runs its worker in process), ` +
      `derived from the status load under confirms: **${life.server.toFixed(1)} ms** of the service's CPU and ` +
      `**${life.postgres.toFixed(1)} ms** of PostgreSQL's per confirm (the CPU per status read above the idle one's, times ` +
      `${life.readsPerConfirm.toFixed(1)} status reads per confirm: ${n0(life.confirms)} confirms accepted per second, median ` +
      `of the rounds). The chain node's own CPU is not in it.`
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
  if (report.canaries.length > 0) {
    lines.push(
      `### Canaries: did a system drift?`,
      ``,
      `Each system's status load, run after the warm-up and again after the rounds of each scenario (the systems start ` +
        `fresh for each). Drift is the change of the system's CPU per request (req/s also moves with whatever else the ` +
        `shared machine runs); a system whose drift is beyond ${100 * driftLimit} % drifted, and the goals measured against ` +
        `it say so.`,
      ``,
      ...canaryTable(report),
      ``
    )
  }
  const create = report.loads.get("create.service")
  if (create !== undefined) {
    lines.push(`### Create payment`, ``, ...loadTable(report, ["create.service", "create.floor", "create.b2", "create.b1", "create.same"], ["create.floor", "create.b2"]), ``)
    const compare = (id: string, name: string) => {
      const other = report.loads.get(id)
      return other === undefined ? [] : [`service vs ${name}: ${x(create.rps / other.rps)} req/s, p50 ${x(create.p50 / other.p50)}, p99 ${x(create.p99 / other.p99)}`]
    }
    const said = [...compare("create.floor", "the floor"), ...compare("create.b2", "B2"), ...compare("create.b1", "B1")]
    if (said.length > 0) lines.push(`${said.join("; ")}.`, ``)
  }
  const status = report.loads.get("status.service")
  if (status !== undefined) {
    lines.push(
      `### Merchant status`,
      ``,
      ...loadTable(report, ["status.service", "status.floor", "status.pipeline", "status.baseline", "status.same"], ["status.floor", "status.pipeline", "status.baseline"]),
      ``
    )
    const compare = (id: string, name: string) => {
      const other = report.loads.get(id)
      return other === undefined ? [] : [`service vs ${name}: ${x(status.rps / other.rps)} req/s, p99 ${x(status.p99 / other.p99)}`]
    }
    const said = [...compare("status.floor", "the floor"), ...compare("status.pipeline", "the plain pipeline"), ...compare("status.baseline", "the raw SELECT")]
    if (said.length > 0) lines.push(`${said.join("; ")}.`, ``)
    const floor = report.loads.get("status.floor")
    const plain = report.loads.get("status.pipeline")
    if (floor !== undefined && plain !== undefined) {
      lines.push(
        `The contract's pipeline written plainly (\`bench/lib/PlainPipeline.ts\`, in the floor's process) runs at ${x(plain.rps / floor.rps)} ` +
          `the floor's req/s: the least the status pipeline can cost on this framework, in this run, against the goal's 0.9×. ` +
          `The service runs at ${x(status.rps / plain.rps)} of it.`,
        ``
      )
    }
  }
  if (report.loads.has("status.confirms")) {
    lines.push(
      `### Merchant status while confirms run flat out`,
      ``,
      ...loadTable(report, ["confirms.idle.service", "status.confirms", "confirms.idle.floor", "status.confirms.floor"], []),
      ``
    )
    const said = ([["status.confirms", "confirms.idle.service", "the service"], ["status.confirms.floor", "confirms.idle.floor", "the floor"]] as const)
      .flatMap(([busy, idle, name]) => {
        const ratios = confirmRatios(report, busy, idle)
        return ratios === undefined ? [] : [`${name}: p50 ${x(ratios.p50)}, p99 ${x(ratios.p99)}`]
      })
    if (said.length > 0) {
      lines.push(
        `Under confirm load vs idle, same rounds: ${said.join("; ")}. The confirms go to the service either way; the floor's ` +
          `figure is what the least an Effect app would see of them through the shared cores and PostgreSQL.`,
        ``
      )
    }
  }
  if (report.loads.has("confirms.service")) {
    lines.push(
      `### Confirms per second flat out`,
      ``,
      ...loadTable(report, ["confirms.service", "confirms.plain"], ["confirms.plain"]),
      ``,
      `Each a prepared EIP-3009 confirm of its own payment (3 interleaved rounds of 3 s); both systems run the API alone ` +
        `(the executor's work is queued, not executed), on the same database copy.`,
      ``
    )
  }
  if (report.loads.has("options.service")) {
    lines.push(`### Payment options (3 accounts)`, ``, ...loadTable(report, ["options.service"], []), ``)
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
    const life = confirmLifeLine(report)
    if (life !== undefined) lines.push(life, ``)
  }
  lines.push(
    `### Memory`,
    ``,
    `- RSS peak (\`VmHWM\`, the largest over the scenarios, each system started fresh per scenario): ` +
      (["service", "floor", "raw"] as const)
        .filter((system) => report.rssPeakBytes[system] > 0)
        .map((system) => (system === "service" ? `service **${mb(report.rssPeakBytes.service)}**` : `${systemNames[system]} ${mb(report.rssPeakBytes[system])}`))
        .join(", ") + `.`,
    ...[...report.loads.values()]
      .filter((f) => f.peakRssBytes !== undefined && /\.(service|confirms)$/.test(f.id))
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
  const life = confirmLife(report)
  if (life !== undefined) {
    lines.push(`  a confirm's whole life (derived): service ${life.server.toFixed(1)} ms CPU, PostgreSQL ${life.postgres.toFixed(1)} ms`)
  }
  lines.push(``, `canaries (at the start → at the end of each scenario):`)
  for (const c of report.canaries) {
    lines.push(
      `  ${c.scenario.padEnd(8)} ${c.system.padEnd(8)} ${n0(c.start.rps).padStart(6)} → ${n0(c.end.rps).padStart(6)} req/s, ` +
        `${c.start.cpuMs.toFixed(3)} → ${c.end.cpuMs.toFixed(3)} ms CPU per request: drift ${percent(driftOf(c))}`
    )
  }
  lines.push(``, `goals:`)
  for (const g of goals(report)) {
    const said = g.met === undefined ? "  -   " : g.met ? "  met " : "MISSED"
    lines.push(`  ${said}  ${g.name}: ${g.measured}${g.drifted === undefined ? "" : ` (not conclusive: ${g.drifted})`}`)
  }
  const peaks = (["service", "floor", "raw"] as const).filter((system) => report.rssPeakBytes[system] > 0)
  lines.push(`  RSS peak: ${peaks.map((system) => `${system} ${mb(report.rssPeakBytes[system])}`).join(", ")}`)
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
