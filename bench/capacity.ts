/**
 * The capacity check (`BENCH_SCENARIOS=capacity`): does throughput follow
 * `requests/s = cores / CPU-seconds per request` (the model of `docs/capacity.md`)?
 *
 * API processes only (`node dist/main.mjs` with `WORKER_IN_PROCESS=false`), on a copy of the seeded
 * database. Two of them start once; each configuration pins them, PostgreSQL (the postmaster and
 * every backend) and the load generator (this process) with `taskset`, then runs the service's
 * status and create loads (32 connections, split evenly over the API processes it uses):
 *
 * - **calibration**: one API process, nothing pinned. Its CPU per request of the API process,
 *   PostgreSQL and the load generator are the model's inputs for every prediction of the run.
 * - **one API** on core 1; PostgreSQL and the load generator on core 0.
 * - **two APIs on core 1**; PostgreSQL and the load generator on core 0 (processes without cores add nothing).
 * - **two APIs, one per core**; PostgreSQL and the load generator on core 0 beside the first.
 * - **two APIs, nothing pinned**.
 *
 * Each configuration's throughput is predicted from the calibration's figures, measured over
 * interleaved rounds (`BENCH_ROUNDS`, 3; `BENCH_SECONDS` each, 5), and compared (within 20 %).
 * Writes its block of `BENCHMARKS.md` (between the `bench:capacity` markers) unless `BENCH_NO_WRITE=1`.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import type { BenchContext } from "./lib/context.ts"
import { type HttpLoad, median, runHttp, uniqueSequence } from "./lib/load.ts"
import { writeBlock } from "./lib/MarkdownBlock.ts"
import {
  copyDatabase,
  cpuSecondsOf,
  dropDatabase,
  log,
  machineCpuSeconds,
  type Postgres,
  postgresCpuSeconds,
  processTree,
  root,
  type Server,
  sleep,
  startService
} from "./lib/processes.ts"
import { serviceStatusReads } from "./scenarios.ts"

const run = promisify(execFile)

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback
}

const rounds = int("BENCH_ROUNDS", 3)
const seconds = int("BENCH_SECONDS", 5)
const connections = int("BENCH_CONNECTIONS", 32)
const allCores = `0-${cpus().length - 1}`
/** Within this of the prediction, the model holds. */
const tolerance = 0.2
/** Other work busier than this (cores, median over the rounds) takes the cores the model counts as ours: not conclusive. */
const otherLimit = 0.2

/** CPU milliseconds per request, by process. */
export interface CpuPerRequest {
  readonly api: number
  readonly postgres: number
  readonly loadgen: number
}

/** Where each process runs (`taskset -c` lists), and what the model predicts there. */
interface Placement {
  readonly id: string
  readonly label: string
  /** One entry per API process used: its cores. */
  readonly apis: ReadonlyArray<string>
  /** PostgreSQL's and the load generator's cores. */
  readonly rest: string
  readonly formula: string
  /** Requests per second from CPU ms per request. */
  readonly predict: (cpu: CpuPerRequest) => number
}

const perCore = (ms: number) => 1000 / ms

/** Two APIs, core 1 for the second alone, core 0 for the first, PostgreSQL and the load generator. */
const oneCoreEach = ({ api, loadgen, postgres }: CpuPerRequest) => {
  const shared = postgres + loadgen
  const second = Math.min(perCore(api), perCore(shared))
  return second + Math.max(0, (1000 - second * shared) / (api + shared))
}

/** One API core against one core for PostgreSQL and the load generator. */
const coreAgainstCore = {
  formula: "min(1 / api, 1 / (pg + lg))",
  predict: ({ api, loadgen, postgres }: CpuPerRequest) => Math.min(perCore(api), perCore(postgres + loadgen))
}

const placements: ReadonlyArray<Placement> = [
  {
    id: "calibration",
    label: "calibration: one API, nothing pinned",
    apis: [allCores],
    rest: allCores,
    formula: "min(1 / api, 2 / (api + pg + lg))",
    predict: ({ api, loadgen, postgres }) => Math.min(perCore(api), 2 * perCore(api + postgres + loadgen))
  },
  {
    id: "one",
    label: "one API on core 1; PostgreSQL + load generator on core 0",
    apis: ["1"],
    rest: "0",
    ...coreAgainstCore
  },
  {
    id: "two-shared",
    label: "two APIs on core 1; PostgreSQL + load generator on core 0",
    apis: ["1", "1"],
    rest: "0",
    ...coreAgainstCore,
    formula: `${coreAgainstCore.formula}: a process adds nothing without a core`
  },
  {
    id: "two-cores",
    label: "two APIs, one on core 1, one on core 0 with PostgreSQL + load generator",
    apis: ["0", "1"],
    rest: "0",
    formula: "x₂ = min(1 / api, 1 / (pg + lg)); x₁ = (1 − x₂ (pg + lg)) / (api + pg + lg); x₁ + x₂",
    predict: oneCoreEach
  },
  {
    id: "two-free",
    label: "two APIs, nothing pinned",
    apis: [allCores, allCores],
    rest: allCores,
    formula: "2 / (api + pg + lg)",
    predict: ({ api, loadgen, postgres }) => 2 * perCore(api + postgres + loadgen)
  }
]

type LoadId = "status" | "create"

const labels: Record<LoadId, string> = {
  status: "status: GET /v1/merchant/payment/:id/status",
  create: "create: POST /v1/merchant/payment (Idempotency-Key)"
}

const createReads = (context: BenchContext, server: Server): HttpLoad => {
  const unique = uniqueSequence(`${context.runId}-${server.port}-cap`)
  return {
    url: server.url,
    method: "POST",
    headers: { "api-key": context.apiKey, "merchant-id": context.merchantId, "content-type": "application/json" },
    next: () => {
      const id = unique()
      return {
        path: "/v1/merchant/payment",
        headers: { "idempotency-key": id },
        body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: id })
      }
    }
  }
}

/** One run of one load in one placement. */
interface CapacitySample {
  readonly rps: number
  readonly cpu: CpuPerRequest
  /** Cores busy on average: the API processes together, PostgreSQL and the load generator together. */
  readonly apiCores: number
  readonly restCores: number
  /** Cores busy with anything else on the machine (other work; the API processes' idle local chains). */
  readonly otherCores: number
  readonly failures: number
}

/** Everything the block reports. */
export interface CapacityFigures {
  readonly date: Date
  readonly minutes: number
  readonly command: string
  readonly calibration: Record<LoadId, CpuPerRequest>
  readonly samples: ReadonlyArray<{ readonly placement: string; readonly load: LoadId; readonly runs: ReadonlyArray<CapacitySample> }>
  readonly load: readonly [number, number]
}

const pin = async (pids: ReadonlyArray<number>, cores: string) => {
  for (const pid of pids) await run("taskset", ["-a", "-p", "-c", cores, String(pid)]).catch(() => undefined)
}

/** What the seeded database gives the loads. */
export type CapacitySeed = Pick<BenchContext, "apiKey" | "partnerId" | "merchantId" | "paymentIds" | "servedPaths">

/** Runs the check on a copy of the seeded database; answers its figures (and writes its block). */
export const runCapacityBench = async (postgres: Postgres, seeded: CapacitySeed, runId: string, write: boolean) => {
  const postmaster = postgres.postmasterPid
  if (postmaster === undefined) throw new Error("the capacity check pins PostgreSQL: it needs the bench's own (unset BENCH_DATABASE_URL)")
  if (cpus().length < 2) throw new Error("the capacity check needs 2 cores")
  await run("taskset", ["-p", String(process.pid)]).catch(() => {
    throw new Error("the capacity check needs taskset (util-linux)")
  })
  const started = Date.now()
  const loadBefore = loadavg()[0]!
  const databaseUrl = await copyDatabase(postgres.url, "bench_capacity")
  const apis: Array<Server> = []
  try {
    log("capacity: starting two API processes (node dist/main.mjs, WORKER_IN_PROCESS=false)")
    for (const n of [1, 2]) {
      apis.push(await startService({ databaseUrl, logFile: join(root, `bench/.out/capacity.api${n}.log`), env: { WORKER_IN_PROCESS: "false" } }))
    }
    const context = { runId: `${runId}-capacity`, databaseUrl, service: apis[0]!, floor: apis[0]!, baseline: apis[0]!, ...seeded }
    const loadsOf = (load: LoadId, used: ReadonlyArray<Server>) =>
      used.map((server) => (load === "status" ? serviceStatusReads({ ...context, service: server }) : createReads(context, server)))
    const prepared = new Map<string, ReadonlyArray<HttpLoad>>()
    const measure = async (placement: Placement, load: LoadId, duration: number): Promise<CapacitySample> => {
      const used = apis.slice(0, placement.apis.length)
      for (const [i, server] of used.entries()) await pin(processTree(server.child.pid!), placement.apis[i]!)
      await pin(processTree(postmaster), placement.rest)
      await pin([process.pid], placement.rest)
      const key = `${placement.apis.length}-${load}`
      const http = prepared.get(key) ?? loadsOf(load, used)
      prepared.set(key, http)
      await sleep(500)
      const apiCpu = () => used.reduce((sum, server) => sum + cpuSecondsOf(server.child.pid!), 0)
      const before = {
        api: apiCpu(),
        postgres: postgresCpuSeconds(postmaster),
        loadgen: process.cpuUsage(),
        machine: machineCpuSeconds().busy,
        at: Date.now()
      }
      const samples = await Promise.all(http.map((h) => runHttp(h, { connections: Math.floor(connections / used.length) }, duration)))
      const elapsed = (Date.now() - before.at) / 1000
      const loadgenUsage = process.cpuUsage(before.loadgen)
      const spent = {
        api: apiCpu() - before.api,
        postgres: postgresCpuSeconds(postmaster) - before.postgres,
        loadgen: (loadgenUsage.user + loadgenUsage.system) / 1e6
      }
      const ok = samples.reduce((sum, s) => sum + s.ok, 0)
      const ms = (cpuSeconds: number) => (1000 * cpuSeconds) / ok
      return {
        rps: samples.reduce((sum, s) => sum + s.rps, 0),
        cpu: { api: ms(spent.api), postgres: ms(spent.postgres), loadgen: ms(spent.loadgen) },
        apiCores: spent.api / elapsed,
        restCores: (spent.postgres + spent.loadgen) / elapsed,
        otherCores: Math.max(0, machineCpuSeconds().busy - before.machine - spent.api - spent.postgres - spent.loadgen) / elapsed,
        failures: samples.reduce((sum, s) => sum + s.non2xx + s.errors, 0)
      }
    }
    const loads: ReadonlyArray<LoadId> = ["status", "create"]
    log(`capacity: warm-up, 3 s per load and API process`)
    for (const load of loads) await measure(placements.at(-1)!, load, 3)
    const runs = new Map<string, Array<CapacitySample>>()
    for (let round = 0; round < rounds; round++) {
      const order = placements.map((_, i) => placements[(i + round) % placements.length]!)
      for (const placement of order) {
        for (const load of loads) {
          const sample = await measure(placement, load, seconds)
          const key = `${placement.id}/${load}`
          runs.set(key, [...(runs.get(key) ?? []), sample])
          log(
            `capacity round ${round + 1}/${rounds} ${key.padEnd(20)} ${sample.rps.toFixed(0).padStart(6)} req/s  ` +
              `cores: APIs ${sample.apiCores.toFixed(2)}, PostgreSQL + load generator ${sample.restCores.toFixed(2)}, other work ${sample.otherCores.toFixed(2)}`
          )
        }
      }
    }
    const medianCpu = (samples: ReadonlyArray<CapacitySample>): CpuPerRequest => ({
      api: median(samples.map((s) => s.cpu.api)),
      postgres: median(samples.map((s) => s.cpu.postgres)),
      loadgen: median(samples.map((s) => s.cpu.loadgen))
    })
    const figures: CapacityFigures = {
      date: new Date(),
      minutes: (Date.now() - started) / 60_000,
      command: `${process.env.BENCH_SCENARIOS === undefined ? "" : `BENCH_SCENARIOS=${process.env.BENCH_SCENARIOS} `}npm run bench`,
      calibration: { status: medianCpu(runs.get("calibration/status")!), create: medianCpu(runs.get("calibration/create")!) },
      samples: placements.flatMap((placement) => loads.map((load) => ({ placement: placement.id, load, runs: runs.get(`${placement.id}/${load}`)! }))),
      load: [loadBefore, loadavg()[0]!]
    }
    writeFileSync(join(root, "bench/.out/capacity.json"), JSON.stringify(figures, null, 2))
    if (write) {
      writeBlock(join(root, "BENCHMARKS.md"), begin, end, capacityMarkdown(figures))
      log("wrote the capacity block of BENCHMARKS.md")
    }
    process.stdout.write(`\n${capacityText(figures)}\n`)
    return figures
  } finally {
    await pin(processTree(postmaster), allCores)
    await pin([process.pid], allCores)
    await Promise.all(apis.map((api) => api.stop(5_000)))
    await dropDatabase(databaseUrl).catch(() => undefined)
  }
}

/** Each placement and load: prediction, median measurement, ratio, verdict. */
const comparisons = (figures: CapacityFigures) =>
  figures.samples.map(({ load, placement: id, runs }) => {
    const placement = placements.find((p) => p.id === id)!
    const predicted = placement.predict(figures.calibration[load])
    const measured = median(runs.map((s) => s.rps))
    const ratio = measured / predicted
    return {
      placement,
      load,
      runs,
      predicted,
      measured,
      ratio,
      held: Math.abs(ratio - 1) <= tolerance,
      cpu: median(runs.map((s) => s.cpu.api)),
      apiCores: median(runs.map((s) => s.apiCores)),
      restCores: median(runs.map((s) => s.restCores)),
      otherCores: median(runs.map((s) => s.otherCores))
    }
  })

const fixed = (value: number, digits = 0) => value.toFixed(digits)

const verdict = (row: ReturnType<typeof comparisons>[number]) => {
  if (row.placement.id === "calibration") return "(calibration)"
  const said = row.held ? "holds" : "**misses**"
  return row.otherCores > otherLimit ? `${said}, not conclusive: other work took ${fixed(row.otherCores, 2)} cores` : said
}

/** The capacity block of `BENCHMARKS.md`. */
export const capacityMarkdown = (figures: CapacityFigures) => {
  const rows = comparisons(figures)
  const failures = rows.flatMap((row) => row.runs).reduce((sum, s) => sum + s.failures, 0)
  return [
    `## Capacity check (latest figures)`,
    ``,
    `- **Date:** ${figures.date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")} (took ${figures.minutes.toFixed(1)} min)`,
    `- **Command:** \`${figures.command}\``,
    `- **Settings:** API processes \`node dist/main.mjs\` with \`WORKER_IN_PROCESS=false\`; ${connections} connections split evenly over ` +
    `the API processes a configuration uses; ${figures.samples[0]!.runs.length} interleaved rounds of ${seconds} s per configuration and load, medians; ` +
    `pinned with \`taskset -a\` (PostgreSQL: the postmaster and every backend)`,
    ``,
    `Model inputs, from the calibration runs (CPU ms per request, medians):`,
    ``,
    `| load | API process | PostgreSQL | load generator | requests/s per API core | per PostgreSQL core |`,
    `|---|---:|---:|---:|---:|---:|`,
    ...(["status", "create"] as const).map((load) => {
      const cpu = figures.calibration[load]
      return `| ${labels[load]} | ${fixed(cpu.api, 3)} | ${fixed(cpu.postgres, 3)} | ${fixed(cpu.loadgen, 3)} | ${fixed(perCore(cpu.api))} | ${fixed(perCore(cpu.postgres))} |`
    }),
    ``,
    `| configuration | load | model | predicted req/s | measured req/s (median) | measured / predicted | verdict (±${100 * tolerance} %) | API CPU ms per request | cores busy: APIs, PostgreSQL + load generator, other work |`,
    `|---|---|---|---:|---:|---:|---|---:|---|`,
    ...rows.map((row) =>
      `| ${row.placement.label} | ${row.load} | ${row.placement.formula} | ${fixed(row.predicted)} | ${fixed(row.measured)} | ` +
      `${fixed(row.ratio, 2)}× | ${verdict(row)} | ${fixed(row.cpu, 3)} | ${fixed(row.apiCores, 2)}, ${fixed(row.restCores, 2)}, ${fixed(row.otherCores, 2)} |`
    ),
    ``,
    `- ${failures === 0 ? "Every request answered 2xx." : `${failures} requests failed (not counted in req/s).`}`,
    `- 1-minute load average of the machine: ${fixed(figures.load[0], 1)} before the check, ${fixed(figures.load[1], 1)} at its end ` +
    `(${cpus().length} cores; pinning does not keep other work off the pinned cores).`
  ].join("\n")
}

/** A short summary for the terminal. */
export const capacityText = (figures: CapacityFigures) =>
  [
    `capacity check (predicted from the calibration's CPU per request):`,
    ...comparisons(figures).map((row) =>
      `  ${row.placement.id === "calibration" ? "     " : row.held ? "holds" : "MISS "}  ${`${row.placement.id}/${row.load}`.padEnd(20)} ` +
      `predicted ${fixed(row.predicted).padStart(6)}  measured ${fixed(row.measured).padStart(6)} req/s  (${fixed(row.ratio, 2)}×; ` +
      `other work ${fixed(row.otherCores, 2)} cores)`
    )
  ].join("\n")

const begin = "<!-- bench:capacity:begin (written by `npm run bench`; edit outside these markers) -->"
const end = "<!-- bench:capacity:end -->"
