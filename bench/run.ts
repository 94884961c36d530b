/**
 * `npm run bench`: the service against a hand-written baseline on a real PostgreSQL, in one run.
 *
 * 1. Starts a throwaway PostgreSQL with `scripts/ci-postgres.sh` (the CI set-up).
 * 2. Starts the service as deployed (`node packages/http/src/main.ts`, `DATABASE_URL`), mints a
 *    sandbox key with `npm run admin -- partner create --name Bench --sandbox` and creates a
 *    merchant through the API; starts the baseline (`bench/baseline.ts`) on the same database.
 * 3. Warms every load up, then runs interleaved rounds (each round runs every load once, in an
 *    order rotated per round), all with the same concurrency; reports medians over the rounds.
 * 4. Writes `BENCHMARKS.md` (between its markers) and `bench/.out/results.json`; prints a summary.
 *
 * Environment (all optional): `BENCH_CONNECTIONS` (32), `BENCH_ROUNDS` (5), `BENCH_SECONDS` per
 * run (8), `BENCH_WARMUP_SECONDS` (4), `BENCH_LOADS` (comma-separated load ids, default all),
 * `BENCH_PROFILE=1` (service under `--cpu-prof`; summary in `bench/.out/`), `BENCH_DATABASE_URL`
 * (use that PostgreSQL instead of starting one), `BENCH_NO_WRITE=1` (leave BENCHMARKS.md alone),
 * `BENCH_SCENARIOS` (`http`, `webhooks` or both, the default: `webhooks` is the worker's drain,
 * `bench/webhooks.ts`, run after the HTTP loads on the same PostgreSQL).
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, release, totalmem } from "node:os"
import { join } from "node:path"
import type { LoadSettings, Sample } from "./lib/load.ts"
import {
  admin,
  cpuSecondsOf,
  log,
  memoryOf,
  type Postgres,
  postgresCpuSeconds,
  root,
  type Server,
  sleep,
  startBaseline,
  startPostgres,
  startService
} from "./lib/processes.ts"
import { confirmNote } from "./gateway.ts"
import { render, summarise } from "./profile.ts"
import { type CpuPerRequest, figuresOf, type LoadFigures, markdown, type Report, text, writeMarkdown } from "./report.ts"
import { type BenchContext, type Load, scenarios } from "./scenarios.ts"
import { benchScenarios, runWebhookBench, runWebhooksAlone } from "./webhooks.ts"

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isFinite(value) && value > 0 ? value : fallback
}

const settings: LoadSettings = { connections: int("BENCH_CONNECTIONS", 32) }
const rounds = int("BENCH_ROUNDS", 5)
const seconds = int("BENCH_SECONDS", 8)
const warmupSeconds = int("BENCH_WARMUP_SECONDS", 4)
const only = process.env.BENCH_LOADS?.split(",").map((s) => s.trim()).filter((s) => s !== "")
const profile = process.env.BENCH_PROFILE === "1"
const out = join(root, "bench/.out")

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

const loadAverage = () => loadavg()[0]!.toFixed(1)

const describeMachine = (postgres: Postgres) => {
  const cpu = cpus()
  return `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GB RAM, ` +
    `Linux ${release()}, Node ${process.version}, PostgreSQL ${postgres.version} (\`scripts/ci-postgres.sh\`: ` +
    `fsync, synchronous_commit and full_page_writes off); load generator, service, baseline and PostgreSQL share the machine`
}

const main = async () => {
  if (!benchScenarios.has("http")) return benchScenarios.has("webhooks") ? runWebhooksAlone() : undefined
  const started = Date.now()
  const loadBefore = loadAverage()
  const runId = randomBytes(4).toString("hex")
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const profileDir = profile ? join(out, "profile") : undefined

  log("starting PostgreSQL (scripts/ci-postgres.sh)")
  const postgres = await startPostgres()
  let service: Server | undefined
  let baseline: Server | undefined
  let sampler: NodeJS.Timeout | undefined
  try {
    log("starting the service: node packages/http/src/main.ts")
    service = await startService({ databaseUrl: postgres.url, logFile: join(out, "service.log"), cpuProfileDir: profileDir })
    const partner = await admin(postgres.url, "partner", "create", "--name", "Bench", "--sandbox")
    const apiKey = partner.apiKey!
    const partnerId = partner.partnerId!
    const merchant = await fetch(`${service.url}/v1/merchants`, {
      method: "POST",
      headers: { "api-key": apiKey, "idempotency-key": `${runId}-merchant`, "content-type": "application/json" },
      body: JSON.stringify({ merchantName: `Bench shop ${runId}` })
    })
    if (merchant.status !== 201) throw new Error(`merchant creation answered ${merchant.status}: ${await merchant.text()}`)
    const merchantId = ((await merchant.json()) as { merchantId: string }).merchantId
    log("starting the baseline: node bench/baseline.ts")
    baseline = await startBaseline({ databaseUrl: postgres.url, partnerId, merchantId, logFile: join(out, "baseline.log") })
    const openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths?: Record<string, unknown> }
    const paymentIds = await seedPayments(service, apiKey, merchantId, 1000, runId)
    const context: BenchContext = {
      runId,
      databaseUrl: postgres.url,
      service,
      baseline,
      apiKey,
      partnerId,
      merchantId,
      paymentIds,
      servedPaths: new Set(Object.keys(openapi.paths ?? {}))
    }

    const states = scenarios.map((scenario) => ({ scenario, unavailable: scenario.unavailable(context) }))
    const loads: Array<Load> = states
      .filter((s) => s.unavailable === undefined)
      .flatMap((s) => s.scenario.loads)
      .filter((load) => only === undefined || only.includes(load.id))
    for (const s of states) if (s.unavailable !== undefined) log(`${s.scenario.title}: not yet measurable: ${s.unavailable}`)

    // Memory: the service's and the baseline's resident set, sampled while each load runs.
    let current: string | undefined
    const peakByLoad = new Map<string, number>()
    const servicePid = service.child.pid!
    sampler = setInterval(() => {
      if (current === undefined) return
      const { rss } = memoryOf(servicePid)
      peakByLoad.set(current, Math.max(peakByLoad.get(current) ?? 0, rss))
    }, 200)

    // Before the creates are counted: preparing a load may create payments through the service.
    for (const load of loads) await load.prepare?.(context)
    const createsBefore = await scrapeCount(service, 'method="POST",route="/v1/merchant/payment",status="200"')
    let createsSent = 0
    // CPU per successful request of the measured server, of PostgreSQL and of the load generator.
    const cpuByLoad = new Map<string, Array<CpuPerRequest>>()
    const runLoad = async (load: Load, duration: number, record: boolean): Promise<Sample> => {
      const serverPid = (load.system === "service" ? service! : baseline!).child.pid!
      const pgCpu = () => (postgres.postmasterPid === undefined ? Number.NaN : postgresCpuSeconds(postgres.postmasterPid))
      const before = { server: cpuSecondsOf(serverPid), postgres: pgCpu(), loadgen: process.cpuUsage() }
      current = load.id
      const sample = await load.run(context, settings, duration)
      current = undefined
      if (record && sample.ok > 0) {
        const loadgen = process.cpuUsage(before.loadgen)
        const perRequest = (seconds: number) => (1000 * seconds) / sample.ok
        const list = cpuByLoad.get(load.id) ?? []
        list.push({
          server: perRequest(cpuSecondsOf(serverPid) - before.server),
          postgres: perRequest(pgCpu() - before.postgres),
          loadgen: perRequest((loadgen.user + loadgen.system) / 1e6)
        })
        cpuByLoad.set(load.id, list)
      }
      if (load.id === "create.service") createsSent += sample.ok
      if (sample.non2xx > 0 || sample.errors > 0) {
        log(`  ${load.id}: ${sample.non2xx} non-2xx, ${sample.errors} errors: ${JSON.stringify(sample.statusCodes)}`)
      }
      await sleep(500)
      return sample
    }

    log(`warm-up: ${warmupSeconds} s per load, ${settings.connections} connections`)
    for (const load of loads) await runLoad(load, warmupSeconds, false)
    const samples = new Map<string, Array<Sample>>(loads.map((load) => [load.id, []]))
    for (let round = 0; round < rounds; round++) {
      const order = loads.map((_, i) => loads[(i + round) % loads.length]!)
      for (const load of order) {
        const sample = await runLoad(load, seconds, true)
        samples.get(load.id)!.push(sample)
        log(`round ${round + 1}/${rounds} ${load.id.padEnd(16)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50} ms  p99 ${sample.p99} ms`)
      }
    }
    clearInterval(sampler)
    sampler = undefined

    const notes: Array<string> = []
    const failed = [...samples.entries()].filter(([, list]) => list.some((s) => s.non2xx > 0 || s.errors > 0))
    for (const [id, list] of failed) {
      notes.push(`\`${id}\` had failures: ${list.map((s) => `${s.non2xx} non-2xx / ${s.errors} errors`).join("; ")} (req/s counts 2xx only).`)
    }
    if (loads.some((load) => load.id === "create.service")) {
      const counted = (await scrapeCount(service, 'method="POST",route="/v1/merchant/payment",status="200"')) - createsBefore
      notes.push(
        `\`GET /metrics\` counted ${counted} successful creates during the loads; autocannon counted ${createsSent} ` +
          `(responses still in flight when a run stops are counted by the service only: at most ${settings.connections} per run).`
      )
    }
    const confirmed = confirmNote()
    if (confirmed !== undefined) notes.push(confirmed)
    const serviceRssPeakBytes = memoryOf(servicePid).peak
    const baselineRssPeakBytes = memoryOf(baseline.child.pid!).peak

    const figures = new Map<string, LoadFigures>()
    for (const load of loads) {
      figures.set(load.id, figuresOf(load.id, load.label, samples.get(load.id)!, peakByLoad.get(load.id), cpuByLoad.get(load.id) ?? []))
    }

    log("stopping the service (SIGTERM) and the baseline")
    const exit = await service.stop()
    service = undefined
    await baseline.stop()
    baseline = undefined
    if (exit.signal !== null) notes.push(`The service did not exit by itself on SIGTERM (${exit.signal}).`)

    let profileText: string | undefined
    if (profileDir !== undefined) {
      const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))
      if (file !== undefined) {
        profileText = render(summarise(JSON.parse(readFileSync(join(profileDir, file), "utf8"))))
        writeFileSync(join(out, "profile-summary.txt"), `${profileText}\n`)
        notes.push(`CPU profile of the service: \`bench/.out/profile/${file}\`, summary in \`bench/.out/profile-summary.txt\`.`)
      }
    }

    notes.push(
      `1-minute load average of the machine: ${loadBefore} before the run, ${loadAverage()} at its end ` +
        `(${cpus().length} cores; anything above the bench's own processes is other work sharing the machine and widens the noise).`
    )
    const report: Report = {
      date: new Date(),
      minutes: (Date.now() - started) / 60_000,
      machine: describeMachine(postgres),
      command: `npm run bench${only === undefined ? "" : ` (BENCH_LOADS=${only.join(",")})`}${profile ? " (BENCH_PROFILE=1)" : ""}`,
      settings:
        `autocannon ${packageVersion("autocannon")}, ${settings.connections} connections, pipelining 1, for every load; ` +
        `warm-up ${warmupSeconds} s per load, then ${rounds} interleaved rounds of ${seconds} s (order rotated each round), medians over the rounds; ` +
        `baseline: node:http + postgres (porsager) ${packageVersion("postgres")}, pool of 10 like the service; ` +
        `the service logs one JSON line per request to a file, as by default, and its per-credential rate limit is raised`,
      loads: figures,
      scenarios: states,
      serviceRssPeakBytes,
      baselineRssPeakBytes,
      notes
    }
    writeFileSync(join(out, "results.json"), JSON.stringify({ ...report, loads: Object.fromEntries(figures) }, null, 2))
    writeFileSync(join(out, "report.md"), `${markdown(report)}\n`)
    if (process.env.BENCH_NO_WRITE !== "1" && only === undefined) {
      writeMarkdown(join(root, "BENCHMARKS.md"), report)
      log("wrote BENCHMARKS.md")
    }
    process.stdout.write(`${text(report)}\n`)
    if (profileText !== undefined) process.stdout.write(`\n${profileText}\n`)
    if (benchScenarios.has("webhooks")) await runWebhookBench(postgres)
  } finally {
    if (sampler !== undefined) clearInterval(sampler)
    await service?.stop(5_000)
    await baseline?.stop(5_000)
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
