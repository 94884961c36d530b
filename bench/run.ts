/**
 * `npm run bench`: the service against the framework floor and a raw baseline on a real
 * PostgreSQL, in one run.
 *
 * 1. Starts a throwaway PostgreSQL with `scripts/ci-postgres.sh` (the CI set-up).
 * 2. Seeds a database through the service as deployed (`node dist/main.mjs`,
 *    `DATABASE_URL`): a sandbox key minted with `npm run admin -- partner create --name Bench
 *    --sandbox`, a merchant created through the API, 1,000 payments; stops the service.
 * 3. For each scenario (`scenarios.ts`): copies the seeded database, starts the systems its loads
 *    measure fresh on the copy (the service; the floor, `floor.ts`; the raw baseline,
 *    `baseline.ts`), warms every load up, runs each system's canary (its status load), then
 *    interleaved rounds (each round runs every load once, in an order rotated per round), then the
 *    canaries again: a system whose canary moved by more than 10 % drifted, and the goals measured
 *    against it say so. Stops the systems.
 * 4. Writes `BENCHMARKS.md` (between its markers) and `bench/.out/results.json`; prints a summary.
 *
 * Environment (all optional): `BENCH_CONNECTIONS` (32), `BENCH_ROUNDS` (5), `BENCH_SECONDS` per
 * run (5), `BENCH_WARMUP_SECONDS` (3), `BENCH_CANARY_SECONDS` (3), `BENCH_LOADS` (comma-separated
 * load ids, default every load but the diagnostics), `BENCH_DIAGNOSTICS=1` (the diagnostics too),
 * `BENCH_PROFILE=1` (the service and the floor under `--cpu-prof`; summaries and their CPU per
 * request side by side in `bench/.out/`), `BENCH_ALLOC=1` (the bytes they allocate per request, side
 * by side: `bench/.out/alloc-<scenario>.txt`; `BENCH_ALLOC=survivors`: only the bytes that outlived a
 * young-generation collection),
 * `BENCH_QUIET_LIMIT_SECONDS` (30: how long a run waits at most for the machine to be idle),
 * `BENCH_DATABASE_URL` (use that PostgreSQL instead of starting one), `BENCH_NO_WRITE=1` (leave
 * BENCHMARKS.md alone), `BENCH_SCENARIOS` (any of `http`, `size` and `webhooks`, all three by
 * default: `size` is the data-size scenarios, `dataSize.ts`, with their own `BENCH_SIZES`,
 * `BENCH_SIZE_ROUNDS` and `BENCH_SIZE_SECONDS`; `webhooks` is the worker's drain and backlog,
 * `bench/webhooks.ts`, with `BENCH_BACKLOG_EVENTS`; both run after the HTTP loads on the same PostgreSQL;
 * and `capacity`, only when named: the capacity model's check with pinned processes, `bench/capacity.ts`).
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, release, totalmem } from "node:os"
import { join } from "node:path"
import type { LoadSettings, Sample } from "./lib/load.ts"
import {
  admin,
  copyDatabase,
  cpuSecondsOf,
  dropDatabase,
  log,
  machineCpuSeconds,
  memoryOf,
  type Postgres,
  postgresCpuSeconds,
  root,
  type Server,
  sleep,
  startApp,
  startPostgres,
  startService
} from "./lib/processes.ts"
import { confirmNote, confirmsAcceptedPerSecond, confirmsRanOutIn } from "./gateway.ts"
import { confirmRateScenario, confirmsRateNote, dropConfirmsDatabase } from "./confirms.ts"
import { readAllocations, renderAllocations } from "./allocations.ts"
import { render, renderComparison, type Summary, summarise } from "./profile.ts"
import {
  type CanaryFigures,
  type CanaryRun,
  type CpuPerRequest,
  driftLimit,
  driftOf,
  figuresOf,
  type LoadFigures,
  markdown,
  type Report,
  text,
  writeMarkdown
} from "./report.ts"
import type { BenchContext } from "./lib/context.ts"
import { canaries, type Load, type Scenario, scenarios, type System } from "./scenarios.ts"
import { benchScenarios, runWebhookBench, runWebhooksAlone, webhookSeconds } from "./webhooks.ts"
import { dropSizeDatabases, sizeScenarios, sizeText, writeSizeMarkdown } from "./dataSize.ts"
import { runCapacityBench } from "./capacity.ts"

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isFinite(value) && value > 0 ? value : fallback
}

const settings: LoadSettings = { connections: int("BENCH_CONNECTIONS", 32) }
const rounds = int("BENCH_ROUNDS", 5)
const seconds = int("BENCH_SECONDS", 5)
const warmupSeconds = int("BENCH_WARMUP_SECONDS", 3)
const canarySeconds = int("BENCH_CANARY_SECONDS", 3)
const only = process.env.BENCH_LOADS?.split(",").map((s) => s.trim()).filter((s) => s !== "")
const diagnostics = process.env.BENCH_DIAGNOSTICS === "1"
const profile = process.env.BENCH_PROFILE === "1"
// `survivors`: the sampling (lib/AllocationSampling.ts, in each system) keeps only objects that outlived a young collection.
const survivorsOnly = process.env.BENCH_ALLOC === "survivors"
const allocations = process.env.BENCH_ALLOC === "1" || survivorsOnly
const out = join(root, "bench/.out")
/** Seconds between two runs (lets connections close and the servers settle). */
const pause = 0.5
/** Idle, before each run: the whole machine under this many busy cores over a window, waited for at most the limit. */
const quietCores = 0.15
const quietWindowSeconds = 0.5
const quietLimitSeconds = int("BENCH_QUIET_LIMIT_SECONDS", 30)
/** What starting a scenario's systems on a fresh database costs, about (the service starts anvil). */
const startSeconds = 10
/** Seeding (a service start, a partner, a merchant, 1,000 payments), about. */
const seedSeconds = 20
/** The capacity check (`capacity.ts`), about. */
const capacitySeconds = 240
/** Growing the data-size databases to 1M payments (`dataSize.ts`), about. */
const growSeconds = 150

const packageVersion = (name: string) => {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version
  } catch {
    return "?"
  }
}

/** Creates `count` payments through the service (the status loads read them). */
const seedPayments = async (service: Server, apiKey: string, merchantId: string, count: number, runId: string) => {
  const ids: Array<string> = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const n = next++
      const response = await fetch(`${service.url}/v1/merchant/payment`, {
        method: "POST",
        headers: { "api-key": apiKey, "merchant-id": merchantId, "content-type": "application/json" },
        body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: `${runId}-seed-${n}` })
      })
      if (response.status !== 200) throw new Error(`seeding a payment answered ${response.status}: ${await response.text()}`)
      ids.push(((await response.json()) as { paymentId: string }).paymentId)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  return ids
}

/** `paygate_http_requests_total` of one series, from `GET /metrics`. */
const scrapeCount = async (service: Server, labels: string) => {
  const body = await (await fetch(`${service.url}/metrics`)).text()
  const line = body.split("\n").find((l) => l.startsWith("paygate_http_requests_total{") && l.includes(labels))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}

const createsLabel = 'method="POST",route="/v1/merchant/payment",status="200"'

const loadAverage = () => loadavg()[0]!.toFixed(1)

const describeMachine = (postgres: Postgres) => {
  const cpu = cpus()
  return `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GB RAM, ` +
    `Linux ${release()}, Node ${process.version}, PostgreSQL ${postgres.version} (\`scripts/ci-postgres.sh\`: ` +
    `fsync, synchronous_commit and full_page_writes off); load generator, service, floor, raw baseline and PostgreSQL share the machine`
}

/** What every scenario starts from: the seeded database's credential, merchant and payments. */
interface Seed {
  readonly apiKey: string
  readonly partnerId: string
  readonly merchantId: string
  readonly paymentIds: ReadonlyArray<string>
  readonly servedPaths: ReadonlySet<string>
}

/**
 * Seeds the template database through the service (a sandbox partner by the operator CLI, a
 * merchant through the API, 1,000 payments), then stops the service: each scenario copies it.
 */
const seed = async (databaseUrl: string, runId: string): Promise<Seed> => {
  // A day's lifetime: the options load asks for the seeded payments' options up to half an hour
  // later, and an expired payment has none (409).
  const service = await startService({ databaseUrl, logFile: join(out, "seed.service.log"), env: { PAYMENT_LIFETIME_SECONDS: "86400" } })
  try {
    const partner = await admin(databaseUrl, "partner", "create", "--name", "Bench", "--sandbox")
    const apiKey = partner.apiKey!
    const merchant = await fetch(`${service.url}/v1/merchants`, {
      method: "POST",
      headers: { "api-key": apiKey, "idempotency-key": `${runId}-merchant`, "content-type": "application/json" },
      body: JSON.stringify({ merchantName: `Bench shop ${runId}` })
    })
    if (merchant.status !== 201) throw new Error(`merchant creation answered ${merchant.status}: ${await merchant.text()}`)
    const merchantId = ((await merchant.json()) as { merchantId: string }).merchantId
    const openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths?: Record<string, unknown> }
    const paymentIds = await seedPayments(service, apiKey, merchantId, 1000, runId)
    return { apiKey, partnerId: partner.partnerId!, merchantId, paymentIds, servedPaths: new Set(Object.keys(openapi.paths ?? {})) }
  } finally {
    await service.stop()
  }
}

/** The loads of `scenario` this run measures. */
const selected = (scenario: Scenario, seeded: Seed) =>
  scenario.loads.filter((load) =>
    (only === undefined ? diagnostics || load.diagnostic !== true : only.includes(load.id)) && load.unavailable?.(seeded.servedPaths) === undefined
  )

/** The canaries of the systems `loads` measure. */
const canariesOf = (loads: ReadonlyArray<Load>) => canaries.filter((c) => loads.some((load) => load.system === c.system))

/** Seconds a run of `plan` takes by design (start-ups, warm-up, canaries, rounds, pauses). */
const estimateSeconds = (plan: ReadonlyArray<{ readonly scenario: Scenario; readonly loads: ReadonlyArray<Load> }>) =>
  plan.reduce((total, { loads, scenario }) => {
    const checks = canariesOf(loads)
    const warmups = loads.filter((load) => !checks.some((c) => c.load === load)).length
    return total + startSeconds + warmups * (warmupSeconds + pause) + checks.length * (2 * warmupSeconds + pause) +
      2 * checks.length * (canarySeconds + pause) +
      (scenario.rounds ?? rounds) * loads.length * ((scenario.seconds ?? seconds) + pause)
  }, 0)

/** Everything measured in one scenario. */
interface ScenarioRun {
  readonly samples: Map<string, Array<Sample>>
  readonly cpu: Map<string, Array<CpuPerRequest>>
  readonly peaks: Map<string, number>
  readonly canaries: ReadonlyArray<CanaryFigures>
  readonly rssPeakBytes: Record<System, number | undefined>
  readonly notes: ReadonlyArray<string>
  readonly profile: string | undefined
}

/** Starts the systems of `loads` fresh on a copy of the seeded database, runs the scenario, stops them. */
const runScenario = async (
  postgres: Postgres,
  scenario: Scenario,
  loads: ReadonlyArray<Load>,
  seeded: Seed,
  runId: string
): Promise<ScenarioRun> => {
  const own = await scenario.database?.({ url: postgres.url, ...seeded })
  const databaseUrl = await copyDatabase(own?.url ?? postgres.url, `bench_${scenario.id}`)
  const systems = new Set(loads.map((load) => load.system))
  const checks = canariesOf(loads)
  const profileDir = (system: System) => (profile ? join(out, "profile", scenario.id, system) : undefined)
  const allocationProfile = (system: System) => (allocations ? join(out, "alloc", `${scenario.id}-${system}.json`) : undefined)
  if (allocations) mkdirSync(join(out, "alloc"), { recursive: true })
  const logFile = (system: string) => join(out, `${scenario.id}.${system}.log`)
  const app = { databaseUrl, partnerId: seeded.partnerId, merchantId: seeded.merchantId, env: own?.env }
  log(`${scenario.id}: starting ${[...systems].join(", ")} fresh on a copy of ${own === undefined ? "the seeded database" : "its own database"}`)
  const servers: Partial<Record<System, Server>> = {}
  let sampler: NodeJS.Timeout | undefined
  try {
    const [service, floor, baseline] = await Promise.all([
      systems.has("service") ? startService({
          databaseUrl,
          logFile: logFile("service"),
          cpuProfileDir: profileDir("service"),
          allocationProfile: allocationProfile("service"),
          env: own?.env
        }) : undefined,
      systems.has("floor") ? startApp("bench/floor.ts", {
          ...app,
          logFile: logFile("floor"),
          cpuProfileDir: profileDir("floor"),
          allocationProfile: allocationProfile("floor")
        }) : undefined,
      systems.has("raw") ? startApp("bench/baseline.ts", { ...app, logFile: logFile("raw") }) : undefined
    ])
    if (service !== undefined) servers.service = service
    if (floor !== undefined) servers.floor = floor
    if (baseline !== undefined) servers.raw = baseline
    const unstarted = (system: string) => () => {
      throw new Error(`${system} is not started for the scenario ${scenario.id}`)
    }
    const absent = (system: string): Server => ({ child: undefined as never, port: 0, url: "", stop: unstarted(system) })
    const context: BenchContext = {
      runId: `${runId}-${scenario.id}`,
      databaseUrl,
      service: service ?? absent("the service"),
      floor: floor ?? absent("the floor"),
      baseline: baseline ?? absent("the raw baseline"),
      ...seeded,
      ...(own === undefined ? {} : { paymentIds: own.paymentIds, listCursor: own.listCursor })
    }
    const pidOf = (system: System) => servers[system]!.child.pid!

    // Memory: each system's resident set, sampled while each load runs.
    let current: Load | undefined
    const peaks = new Map<string, number>()
    sampler = setInterval(() => {
      if (current === undefined) return
      const { rss } = memoryOf(pidOf(current.system))
      peaks.set(current.id, Math.max(peaks.get(current.id) ?? 0, rss))
    }, 200)

    // Before the creates are counted: preparing a load may create payments through the service.
    for (const load of loads) await load.prepare?.(context)
    const createsBefore = service === undefined ? 0 : await scrapeCount(service, createsLabel)
    let createsSent = 0
    const cpu = new Map<string, Array<CpuPerRequest>>()
    // Requests each system answered in this scenario, for the profiles' time per request.
    const answered: Record<System, number> = { service: 0, floor: 0, raw: 0 }
    const pgCpu = () => (postgres.postmasterPid === undefined ? Number.NaN : postgresCpuSeconds(postgres.postmasterPid))
    // Each run starts once the machine is idle: work a load leaves behind (the executor settling
    // confirmed payments, the chain watcher reading their blocks from anvil and recording each
    // transfer, webhooks, PostgreSQL's autovacuum) must not run during the next load, which rounds
    // rotate. The whole machine, not only the systems and PostgreSQL: a wait that read only those
    // once ended during quiet seconds of theirs (most likely anvil, a child of the service, answering
    // the watcher's log reads), and the watcher's burst came right after.
    let longestQuiet = 0
    const quiet = async () => {
      const started = Date.now()
      for (let last = machineCpuSeconds().busy; Date.now() - started < quietLimitSeconds * 1000;) {
        await sleep(quietWindowSeconds * 1000)
        const now = machineCpuSeconds().busy
        if ((now - last) / quietWindowSeconds < quietCores) break
        last = now
      }
      longestQuiet = Math.max(longestQuiet, (Date.now() - started) / 1000)
    }
    const runLoad = async (load: Load, duration: number, record: boolean): Promise<Sample> => {
      await quiet()
      const serverPid = pidOf(load.system)
      const before = { server: cpuSecondsOf(serverPid), postgres: pgCpu(), loadgen: process.cpuUsage() }
      current = load
      const sample = await load.run(context, settings, duration)
      current = undefined
      answered[load.system] += sample.ok + sample.non2xx
      if (record && sample.ok > 0) {
        const loadgen = process.cpuUsage(before.loadgen)
        const perRequest = (seconds: number) => (1000 * seconds) / sample.ok
        const list = cpu.get(load.id) ?? []
        list.push({
          server: perRequest(cpuSecondsOf(serverPid) - before.server),
          postgres: perRequest(pgCpu() - before.postgres),
          loadgen: perRequest((loadgen.user + loadgen.system) / 1e6)
        })
        cpu.set(load.id, list)
      }
      if (record && load.id === "create.service") createsSent += sample.ok
      if (sample.non2xx > 0 || sample.errors > 0) {
        log(`  ${load.id}: ${sample.non2xx} non-2xx, ${sample.errors} errors: ${JSON.stringify(sample.statusCodes)}`)
      }
      await sleep(pause * 1000)
      return sample
    }

    log(`${scenario.id}: warm-up, ${warmupSeconds} s per load, ${settings.connections} connections`)
    // The canaries' loads last and twice as long, right before they are measured: an Effect app's JIT
    // takes several seconds to settle, and a canary that starts half warm reads as drift.
    const canaryLoads = checks.map((c) => c.load)
    for (const load of loads) if (!canaryLoads.includes(load)) await runLoad(load, warmupSeconds, false)
    for (const load of canaryLoads) await runLoad(load, 2 * warmupSeconds, false)
    const canaryRun = async (when: string) => {
      const result = new Map<System, CanaryRun>()
      for (const c of checks) {
        const before = cpuSecondsOf(pidOf(c.system))
        const sample = await runLoad(c.load, canarySeconds, false)
        const cpuMs = (1000 * (cpuSecondsOf(pidOf(c.system)) - before)) / sample.ok
        result.set(c.system, { rps: sample.rps, cpuMs })
        log(`${scenario.id}: canary ${when} ${c.system.padEnd(8)} ${sample.rps.toFixed(0).padStart(6)} req/s  ${cpuMs.toFixed(3)} ms CPU per request`)
      }
      return result
    }
    const canaryStart = await canaryRun("start")
    const samples = new Map<string, Array<Sample>>(loads.map((load) => [load.id, []]))
    // Only the rounds' creates are compared with autocannon's count.
    const createsCounted = service === undefined ? 0 : await scrapeCount(service, createsLabel)
    const scenarioRounds = scenario.rounds ?? rounds
    for (let round = 0; round < scenarioRounds; round++) {
      const order = loads.map((_, i) => loads[(i + round) % loads.length]!)
      for (const load of order) {
        const sample = await runLoad(load, scenario.seconds ?? seconds, true)
        samples.get(load.id)!.push(sample)
        log(`round ${round + 1}/${scenarioRounds} ${load.id.padEnd(16)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50} ms  p99 ${sample.p99} ms`)
      }
    }
    const createsAfter = service === undefined ? 0 : await scrapeCount(service, createsLabel)
    const canaryEnd = await canaryRun("end")
    clearInterval(sampler)
    sampler = undefined

    const notes: Array<string> = [
      `Each run (warm-up, canaries, rounds) started once the machine was idle (every process together under ${quietCores} of a core ` +
        `for ${quietWindowSeconds} s, waited for at most ${quietLimitSeconds} s): in \`${scenario.id}\` the longest wait was ${longestQuiet.toFixed(1)} s.`
    ]
    if (loads.some((load) => load.id === "create.service") && service !== undefined) {
      notes.push(
        `\`GET /metrics\` counted ${createsAfter - createsCounted} successful creates during the rounds; autocannon counted ${createsSent} ` +
          `(responses still in flight when a run stops are counted by the service only: at most ${settings.connections} per run; ` +
          `${createsCounted - createsBefore} more during the warm-up).`
      )
    }
    const rssPeakBytes: Record<System, number | undefined> = {
      service: service === undefined ? undefined : memoryOf(pidOf("service")).peak,
      floor: floor === undefined ? undefined : memoryOf(pidOf("floor")).peak,
      raw: baseline === undefined ? undefined : memoryOf(pidOf("raw")).peak
    }

    log(`${scenario.id}: stopping the systems (SIGTERM)`)
    if (service !== undefined) {
      const exit = await service.stop()
      delete servers.service
      if (exit.signal !== null) notes.push(`The service did not exit by itself on SIGTERM (${exit.signal}).`)
    }
    if ((profile || allocations) && floor !== undefined) {
      await floor.stop()
      delete servers.floor
    }
    // The profiles of the service and of the floor (each written when its process exits), side by side.
    const summaries: Partial<Record<System, Summary>> = {}
    for (const system of ["service", "floor"] as const) {
      const dir = profileDir(system)
      if (dir === undefined || !existsSync(dir)) continue
      const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
      if (file === undefined) continue
      const summary = summarise(JSON.parse(readFileSync(join(dir, file), "utf8")))
      summaries[system] = summary
      writeFileSync(join(out, `profile-${scenario.id}-${system}.txt`), `${render(summary)}\n`)
      notes.push(`CPU profile of the ${system} in \`${scenario.id}\`: \`bench/.out/profile/${scenario.id}/${system}/${file}\`, summary in \`bench/.out/profile-${scenario.id}-${system}.txt\`.`)
    }
    let profileText: string | undefined = summaries.service === undefined ? undefined : render(summaries.service)
    if (summaries.service !== undefined && summaries.floor !== undefined && answered.service > 0 && answered.floor > 0) {
      profileText = renderComparison({ summary: summaries.service, requests: answered.service }, { summary: summaries.floor, requests: answered.floor })
      writeFileSync(join(out, `profile-${scenario.id}.txt`), `${profileText}\n`)
      notes.push(`The service's CPU per request against the floor's, by category, origin and function: \`bench/.out/profile-${scenario.id}.txt\`.`)
    }
    const allocationFiles = { service: allocationProfile("service"), floor: allocationProfile("floor") }
    if (allocationFiles.service !== undefined && allocationFiles.floor !== undefined && existsSync(allocationFiles.service) && existsSync(allocationFiles.floor)) {
      const text = renderAllocations(
        { allocations: readAllocations(allocationFiles.service), requests: answered.service },
        { allocations: readAllocations(allocationFiles.floor), requests: answered.floor },
        survivorsOnly
      )
      writeFileSync(join(out, `alloc-${scenario.id}.txt`), `${text}\n`)
      profileText = profileText === undefined ? text : `${profileText}\n\n${text}`
      notes.push(`Allocations per request of the service and the floor in \`${scenario.id}\`: \`bench/.out/alloc-${scenario.id}.txt\`.`)
    }
    return {
      samples,
      cpu,
      peaks,
      canaries: checks.map((c) => ({ scenario: scenario.id, system: c.system, start: canaryStart.get(c.system)!, end: canaryEnd.get(c.system)! })),
      rssPeakBytes,
      notes,
      profile: profileText
    }
  } finally {
    if (sampler !== undefined) clearInterval(sampler)
    await Promise.all(Object.values(servers).map((server) => server?.stop(5_000)))
    await dropDatabase(databaseUrl).catch(() => undefined)
  }
}

/** Each scenario of `scenarios` this run can measure, with its loads, and the ones it cannot (with why). */
const planOf = (all: ReadonlyArray<Scenario>, seeded: Seed) => {
  const states = all.map((scenario) => ({ scenario, unavailable: scenario.unavailable(seeded.servedPaths) }))
  for (const s of states) if (s.unavailable !== undefined) log(`${s.scenario.title}: not yet measurable: ${s.unavailable}`)
  const plan = states
    .filter((s) => s.unavailable === undefined)
    .map((s) => ({ scenario: s.scenario, loads: selected(s.scenario, seeded) }))
    .filter((p) => p.loads.length > 0)
  const unmeasured = all.flatMap((scenario) =>
    scenario.loads.flatMap((load) => {
      const why = load.unavailable?.(seeded.servedPaths)
      return why === undefined ? [] : [{ scenario, unavailable: `${load.id}: ${why}` }]
    })
  )
  return { states, plan, unmeasured }
}

type Plan = ReturnType<typeof planOf>["plan"]

/** Runs the scenarios of `plan` one after the other: each load's figures, and what the report needs besides. */
const runPlan = async (postgres: Postgres, plan: Plan, seeded: Seed, runId: string) => {
  const figures = new Map<string, LoadFigures>()
  const canaryFigures: Array<CanaryFigures> = []
  const rss: Record<System, number> = { service: 0, floor: 0, raw: 0 }
  const notes: Array<string> = []
  const profiles: Array<string> = []
  for (const { scenario, loads } of plan) {
    const result = await runScenario(postgres, scenario, loads, seeded, runId)
    for (const load of loads) {
      figures.set(load.id, figuresOf(load.id, load.label, result.samples.get(load.id)!, result.peaks.get(load.id), result.cpu.get(load.id) ?? []))
    }
    canaryFigures.push(...result.canaries)
    for (const system of ["service", "floor", "raw"] as const) rss[system] = Math.max(rss[system], result.rssPeakBytes[system] ?? 0)
    notes.push(...result.notes)
    if (result.profile !== undefined) profiles.push(`${scenario.id}:\n${result.profile}`)
  }
  for (const [id, figure] of figures) {
    const failures = figure.rounds.filter((s) => s.non2xx > 0 || s.errors > 0)
    if (failures.length > 0) {
      notes.push(`\`${id}\` had failures: ${figure.rounds.map((s) => `${s.non2xx} non-2xx / ${s.errors} errors`).join("; ")} (req/s counts 2xx only).`)
    }
  }
  return { figures, canaryFigures, rss, notes, profiles }
}

const loadNote = (loadBefore: string) =>
  `1-minute load average of the machine: ${loadBefore} before the run, ${loadAverage()} at its end ` +
  `(${cpus().length} cores; anything above the bench's own processes is other work sharing the machine and widens the noise).`

const commandLine = () =>
  `${process.env.BENCH_SCENARIOS === undefined ? "" : `BENCH_SCENARIOS=${process.env.BENCH_SCENARIOS} `}npm run bench` +
  `${only === undefined ? "" : ` (BENCH_LOADS=${only.join(",")})`}${profile ? " (BENCH_PROFILE=1)" : ""}`

const writes = process.env.BENCH_NO_WRITE !== "1" && only === undefined

/** The HTTP scenarios (`scenarios.ts`): their report, written between `BENCHMARKS.md`'s first markers. */
const runHttpScenarios = async (postgres: Postgres, seeded: Seed, runId: string, plan: ReturnType<typeof planOf>, started: number, loadBefore: string) => {
  const { figures, canaryFigures, rss, notes, profiles } = await runPlan(postgres, plan.plan, seeded, runId)
  for (const note of [confirmNote(), confirmsRateNote()]) if (note !== undefined) notes.push(note)
  notes.push(loadNote(loadBefore))
  const report: Report = {
    date: new Date(),
    minutes: (Date.now() - started) / 60_000,
    machine: describeMachine(postgres),
    command: commandLine(),
    settings:
      `autocannon ${packageVersion("autocannon")}, ${settings.connections} connections, pipelining 1, for every load; ` +
      `each scenario starts its systems fresh on a copy of the same seeded database; warm-up ${warmupSeconds} s per load, ` +
      `canaries of ${canarySeconds} s per system before and after the rounds, ${rounds} interleaved rounds of ${seconds} s ` +
      `(order rotated each round), medians over the rounds; floor: Effect ${packageVersion("effect")} HttpApi + @effect/sql-pg ` +
      `${packageVersion("@effect/sql-pg")}; raw: node:http + pg (node-postgres) ${packageVersion("pg")}; pools of 10 like the service; ` +
      `the service logs one JSON line per request to a file, as by default, and its per-credential rate limit is raised`,
    loads: figures,
    scenarios: [...plan.states, ...plan.unmeasured],
    canaries: canaryFigures,
    rssPeakBytes: rss,
    notes,
    confirmsAccepted: confirmsAcceptedPerSecond("status.confirms"),
    confirmsRanOut: confirmsRanOutIn(["status.confirms", "status.confirms.floor"])
  }
  writeFileSync(join(out, "results.json"), JSON.stringify({ ...report, loads: Object.fromEntries(figures) }, null, 2))
  writeFileSync(join(out, "report.md"), `${markdown(report)}\n`)
  if (writes) {
    writeMarkdown(join(root, "BENCHMARKS.md"), report)
    log("wrote BENCHMARKS.md")
  }
  process.stdout.write(`${text(report)}\n`)
  for (const summary of profiles) process.stdout.write(`\n${summary}\n`)
}

/** The data-size scenarios (`dataSize.ts`): their block of `BENCHMARKS.md`. */
const runSizeScenarios = async (postgres: Postgres, seeded: Seed, runId: string, plan: Plan) => {
  const started = Date.now()
  const loadBefore = loadAverage()
  const { figures, canaryFigures, rss, notes } = await runPlan(postgres, plan, seeded, runId)
  const drifted = canaryFigures.filter((canary) => Math.abs(driftOf(canary)) > driftLimit)
  for (const canary of drifted) {
    notes.push(`In \`${canary.scenario}\` the service's CPU per status request drifted ${(100 * driftOf(canary)).toFixed(0)} % from the start of the scenario to its end.`)
  }
  notes.push(`Service RSS peak over the sizes: ${(rss.service / 1024 / 1024).toFixed(0)} MB.`, loadNote(loadBefore))
  const report = {
    date: new Date(),
    minutes: (Date.now() - started) / 60_000,
    command: commandLine(),
    figures,
    drifted: drifted.map((canary) => canary.scenario),
    notes
  }
  writeFileSync(join(out, "size.json"), JSON.stringify({ ...report, figures: Object.fromEntries(figures) }, null, 2))
  if (writes) {
    writeSizeMarkdown(join(root, "BENCHMARKS.md"), report)
    log("wrote the data-size block of BENCHMARKS.md")
  }
  process.stdout.write(`\n${sizeText(figures)}\n`)
}

const main = async () => {
  const measuresHttp = benchScenarios.has("http")
  const measuresSize = benchScenarios.has("size")
  const measuresCapacity = benchScenarios.has("capacity")
  if (!measuresHttp && !measuresSize && !measuresCapacity) return benchScenarios.has("webhooks") ? runWebhooksAlone() : undefined
  const started = Date.now()
  const loadBefore = loadAverage()
  const runId = randomBytes(4).toString("hex")
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })

  log("starting PostgreSQL (scripts/ci-postgres.sh)")
  const postgres = await startPostgres()
  try {
    log("seeding the database every scenario copies: node dist/main.mjs, a partner, a merchant, 1,000 payments")
    const seeded = await seed(postgres.url, runId)
    const httpPlan = planOf(measuresHttp ? [...scenarios, confirmRateScenario] : [], seeded)
    const sizePlan = planOf(measuresSize ? sizeScenarios : [], seeded).plan
    const estimate = seedSeconds + estimateSeconds([...httpPlan.plan, ...sizePlan]) + (measuresSize ? growSeconds : 0) +
      (benchScenarios.has("webhooks") ? webhookSeconds : 0) + (measuresCapacity ? capacitySeconds : 0)
    log(
      `by design about ${(estimate / 60).toFixed(1)} min in all, plus preparing loads ` +
        `(${[...httpPlan.plan, ...sizePlan].map((p) => `${p.scenario.id}: ${p.loads.length} loads`).join(", ")})`
    )
    if (measuresHttp) await runHttpScenarios(postgres, seeded, runId, httpPlan, started, loadBefore)
    if (measuresSize) await runSizeScenarios(postgres, seeded, runId, sizePlan)
    if (measuresCapacity) await runCapacityBench(postgres, seeded, runId, writes)
    if (benchScenarios.has("webhooks")) await runWebhookBench(postgres)
  } finally {
    await dropSizeDatabases()
    await dropConfirmsDatabase()
    await postgres.stop()
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
