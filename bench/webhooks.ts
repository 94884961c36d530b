/**
 * The webhook drain bench: the worker as deployed (`node dist/worker.mjs`, default
 * settings) against the hand-written drain loop (`webhookBaseline.ts`), on the same PostgreSQL
 * and database, to the same local 200-OK receiver (`lib/receiver.ts`).
 *
 * - **Drain**: `BENCH_WEBHOOK_EVENTS` (6,000) new outbox events (`payment.created`, each with its
 *   payment, as the service writes them) of 8 partners with one endpoint each, interleaved, are
 *   seeded while nothing runs; then the system is started and drains them. Deliveries per second
 *   run from the first webhook's arrival to the last (start-up excluded), with CPU per delivery
 *   of the system's process, PostgreSQL and the receiver over the same window. Both systems have
 *   at most 32 requests in flight (worker: 4 per endpoint × 8 endpoints; loop: 4 × 8).
 *   `BENCH_WEBHOOK_ROUNDS` (3) interleaved rounds each, medians.
 * - **Latency**: with the worker running and idle, 200 events are written one at a time (a
 *   payment and its outbox event in one transaction, 20–80 ms apart); enqueue → first attempt is
 *   from just before the write to the webhook's arrival.
 *
 * Run alone with `BENCH_SCENARIOS=webhooks npm run bench`. Writes its own block of `BENCHMARKS.md`
 * (between the `bench:webhooks` markers) unless `BENCH_NO_WRITE=1`, and `bench/.out/webhooks.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { makePostgresWorld, type PostgresWorld, type SeededEndpoint } from "../test/support/PostgresWorld.ts"
import type { Merchant } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type Drainer, exitOf, startHandLoop } from "./lib/handLoop.ts"
import { backlogGoals, backlogMarkdown, backlogEvents, backlogSeconds, backlogText, type BacklogFigures, runBacklog } from "./webhookBacklog.ts"
import { median } from "./lib/load.ts"
import { writeBlock } from "./lib/MarkdownBlock.ts"
import { cpuSecondsOf, log, type Postgres, postgresCpuSeconds, root, sleep, startPostgres } from "./lib/processes.ts"
import { type CountingReceiver, startCountingReceiver } from "./lib/receiver.ts"

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback
}

const events = int("BENCH_WEBHOOK_EVENTS", 6_000)
const rounds = int("BENCH_WEBHOOK_ROUNDS", 3)
const partners = 8
const latencyEvents = 200
const baselineLoops = 4
const baselineBatch = 8

/** The whole webhook bench (drains, latency, backlog), about, in seconds on a quiet machine. */
export const webhookSeconds = 20 + (rounds * 2 * events) / 1_000 + 15 + backlogSeconds

type System = "worker" | "baseline"

/** CPU milliseconds per delivery, by process. */
interface CpuPerDelivery {
  readonly system: number
  readonly postgres: number
  readonly receiver: number
}

/** One drain of one system. */
export interface DrainSample {
  readonly deliveries: number
  readonly seconds: number
  readonly rate: number
  readonly cpu: CpuPerDelivery
}

/** What the webhook bench measured. */
export interface WebhookFigures {
  readonly date: Date
  readonly minutes: number
  readonly machine: string
  readonly command: string
  readonly events: number
  /** 1-minute load average of the machine before and after the run. */
  readonly load: readonly [number, number]
  readonly drains: Readonly<Record<System, ReadonlyArray<DrainSample>>>
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number; readonly count: number }
  readonly backlog: BacklogFigures
}

const nowMs = () => performance.timeOrigin + performance.now()

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

interface Bench {
  readonly world: PostgresWorld
  readonly receiver: CountingReceiver
  readonly merchants: ReadonlyArray<Merchant>
  readonly endpoints: ReadonlyArray<SeededEndpoint & { readonly partnerId: string }>
  readonly postgres: Postgres
}

// The partners' events interleaved (in slices of 25), as a busy gateway would write them.
const seed = async ({ merchants, world }: Bench, count: number) => {
  const ids: Array<string> = []
  for (let i = 0; ids.length < count; i++) {
    ids.push(...await world.seed(merchants[i % merchants.length]!, Math.min(25, count - ids.length)))
  }
  return ids
}

const startBaselineDrain = (bench: Bench) =>
  startHandLoop(
    bench.world.url,
    bench.endpoints.map((e) => ({ id: e.id, partnerId: e.partnerId, url: bench.receiver.url(e.path), secret: e.secret })),
    { loops: baselineLoops, batch: baselineBatch, byEndpoint: false }
  )

// Deliveries of `ids` recorded as succeeded, and outbox events not yet processed.
const recordedOf = (world: PostgresWorld, ids: ReadonlyArray<string>) =>
  world.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly succeeded: number; readonly unprocessed: number }>`SELECT
      (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'succeeded' AND event_id = ANY(${`{${ids.join(",")}}`}::text[])) AS succeeded,
      (SELECT count(*)::int FROM outbox_events WHERE processed_at IS NULL) AS unprocessed`
    return row!
  }).pipe(Effect.orDie))

const drain = async (bench: Bench, system: System): Promise<DrainSample> => {
  const { receiver, world } = bench
  const ids = await seed(bench, events)
  // Nothing can arrive before `expect` below: requests are handled on a later turn of the event loop.
  const drainer: Drainer = system === "worker"
    ? world.spawnWorker()
    : startBaselineDrain(bench)
  const pgCpu = () => (bench.postgres.postmasterPid === undefined ? Number.NaN : postgresCpuSeconds(bench.postgres.postmasterPid))
  const snapshot = () => ({ system: cpuSecondsOf(drainer.child.pid!), postgres: pgCpu(), receiver: process.cpuUsage() })
  let first: ReturnType<typeof snapshot> | undefined
  receiver.expect(ids, () => (first = snapshot()))
  await receiver.done(180_000).catch((error: Error) => {
    throw new Error(`${system}: ${error.message}; its output:\n${drainer.output().slice(-3_000)}`)
  })
  const last = snapshot()
  const times = [...receiver.arrivals.values()]
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000
  const receiverCpu = process.cpuUsage(first!.receiver)
  const perDelivery = (cpuSeconds: number) => (1000 * cpuSeconds) / ids.length
  if (system === "worker") drainer.child.kill("SIGTERM")
  await exitOf(drainer.child)
  // Everything is recorded as delivered once, and the outbox is empty.
  const recorded = await recordedOf(world, ids)
  if (recorded.succeeded !== ids.length || recorded.unprocessed !== 0) {
    throw new Error(`${system}: ${JSON.stringify(recorded)} after draining ${ids.length} events`)
  }
  return {
    deliveries: ids.length,
    seconds,
    rate: (ids.length - 1) / seconds,
    cpu: {
      system: perDelivery(last.system - first!.system),
      postgres: perDelivery(last.postgres - first!.postgres),
      receiver: perDelivery((receiverCpu.user + receiverCpu.system) / 1e6)
    }
  }
}

const latency = async (bench: Bench) => {
  const { receiver, world } = bench
  const worker = world.spawnWorker()
  for (let i = 0; !worker.output().includes("worker started"); i++) {
    if (i > 600) throw new Error(`the worker did not start:\n${worker.output()}`)
    await sleep(50)
  }
  await sleep(1_000)
  const sent = new Map<string, number>()
  receiver.expect([])
  for (let i = 0; i < latencyEvents; i++) {
    const before = nowMs()
    const [id] = await world.seed(bench.merchants[i % bench.merchants.length]!, 1)
    sent.set(id!, before)
    receiver.add(id!)
    await sleep(20 + Math.random() * 60)
  }
  await receiver.done(60_000)
  worker.child.kill("SIGTERM")
  await worker.exited
  const latencies = [...sent].map(([id, at]) => receiver.arrivals.get(id)! - at)
  return {
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    count: latencies.length
  }
}

/** Runs the webhook bench on `postgres` (a fresh database of its own); writes its results. */
export const runWebhookBench = async (postgres: Postgres): Promise<WebhookFigures> => {
  const started = Date.now()
  const loadBefore = loadavg()[0]!
  log(
    `webhooks: ${events} events per drain, ${rounds} rounds per system, ${partners} partners with one endpoint each; ` +
      `then a backlog of ${backlogEvents}: about ${(webhookSeconds / 60).toFixed(1)} min on a quiet machine`
  )
  const world = await makePostgresWorld(postgres.url)
  const receiver = await startCountingReceiver()
  try {
    const merchants: Array<Merchant> = []
    const endpoints: Array<SeededEndpoint & { readonly partnerId: string }> = []
    for (let i = 0; i < partners; i++) {
      const merchant = await world.merchant()
      merchants.push(merchant)
      endpoints.push({ ...await world.endpoint(merchant, receiver.url(`/p${i}`), `/p${i}`), partnerId: merchant.partnerId })
    }
    const bench: Bench = { world, receiver, merchants, endpoints, postgres }
    const drains: Record<System, Array<DrainSample>> = { worker: [], baseline: [] }
    for (let round = 0; round < rounds; round++) {
      for (const system of (round % 2 === 0 ? ["worker", "baseline"] : ["baseline", "worker"]) as ReadonlyArray<System>) {
        const sample = await drain(bench, system)
        drains[system].push(sample)
        log(`webhooks round ${round + 1}/${rounds} ${system.padEnd(8)} ${sample.rate.toFixed(0).padStart(6)} deliveries/s`)
      }
    }
    log(`webhooks: enqueue → first attempt latency, ${latencyEvents} events one at a time`)
    const measured = await latency(bench)
    const backlog = await runBacklog(world, receiver)
    const figures: WebhookFigures = {
      date: new Date(),
      minutes: (Date.now() - started) / 60_000,
      machine: `${cpus().length} cores, Node ${process.version}, PostgreSQL ${postgres.version}`,
      command: [...["BENCH_SCENARIOS", "BENCH_WEBHOOK_EVENTS", "BENCH_WEBHOOK_ROUNDS", "BENCH_BACKLOG_EVENTS"].flatMap((name) =>
        process.env[name] === undefined ? [] : [`${name}=${process.env[name]}`]
      ), "npm run bench"].join(" "),
      events,
      load: [loadBefore, loadavg()[0]!],
      drains,
      latency: measured,
      backlog
    }
    const out = join(root, "bench/.out")
    mkdirSync(out, { recursive: true })
    writeFileSync(join(out, "webhooks.json"), JSON.stringify(figures, null, 2))
    if (process.env.BENCH_NO_WRITE !== "1") {
      writeWebhookMarkdown(join(root, "BENCHMARKS.md"), figures)
      log("wrote the webhook drain section of BENCHMARKS.md")
    }
    process.stdout.write(`${webhookText(figures)}\n`)
    return figures
  } finally {
    await receiver.close()
    await world.close()
  }
}

/** `BENCH_SCENARIOS=webhooks`: only the webhook bench, on a throwaway PostgreSQL. */
export const runWebhooksAlone = async () => {
  log("starting PostgreSQL (scripts/ci-postgres.sh)")
  const postgres = await startPostgres()
  try {
    await runWebhookBench(postgres)
  } finally {
    await postgres.stop()
  }
}

/**
 * The parts of `npm run bench` to run: `BENCH_SCENARIOS`, comma-separated `http`, `size` (the
 * data-size scenarios, `dataSize.ts`) and `webhooks` (default all three).
 */
export const benchScenarios: ReadonlySet<string> = new Set(
  (process.env.BENCH_SCENARIOS ?? "http,size,webhooks").split(",").map((s) => s.trim()).filter((s) => s !== "")
)

/** The issue's goals for the drain. */
export const webhookGoals = (figures: WebhookFigures) => {
  const worker = median(figures.drains.worker.map((s) => s.rate))
  const baseline = median(figures.drains.baseline.map((s) => s.rate))
  const ratio = worker / baseline
  return [
    {
      name: "worker drain ≥ 0.7× the hand-written loop (deliveries/s)",
      measured: `${ratio.toFixed(2)}× (${worker.toFixed(0)} vs ${baseline.toFixed(0)} deliveries/s)`,
      target: "≥ 0.7×",
      met: ratio >= 0.7
    },
    {
      name: "enqueue → first attempt p50 ≤ 100 ms",
      measured: `${figures.latency.p50.toFixed(0)} ms (p90 ${figures.latency.p90.toFixed(0)} ms, p99 ${figures.latency.p99.toFixed(0)} ms)`,
      target: "≤ 100 ms",
      met: figures.latency.p50 <= 100
    },
    ...backlogGoals(figures.backlog)
  ]
}

const labels: Record<System, string> = {
  worker: "worker (`npm run worker`, default settings)",
  baseline: "hand-written loop: `FOR UPDATE SKIP LOCKED` + `fetch`"
}

/** The webhook section of `BENCHMARKS.md` (between its markers). */
export const webhookMarkdown = (figures: WebhookFigures) => {
  const cpu = (samples: ReadonlyArray<DrainSample>, key: keyof CpuPerDelivery) => median(samples.map((s) => s.cpu[key])).toFixed(3)
  return [
    `## Webhook drain (latest figures)`,
    ``,
    `- **Date:** ${figures.date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")} (took ${figures.minutes.toFixed(1)} min)`,
    `- **Machine:** ${figures.machine}; receiver, worker or loop, and PostgreSQL share the machine`,
    `- **Command:** \`${figures.command}\``,
    `- **Settings:** ${figures.events} events per drain (8 partners, one endpoint each), ${figures.drains.worker.length} interleaved ` +
    `rounds per system, medians; at most 32 requests in flight for both; latency over ${figures.latency.count} events written one at a time`,
    ``,
    `| goal | measured | target | verdict |`,
    `|---|---|---|---|`,
    ...webhookGoals(figures).map((g) => `| ${g.name} | ${g.measured} | ${g.target} | ${g.met ? "met" : "**missed**"} |`),
    ``,
    `| system | deliveries/s (median) | per round | CPU ms per delivery: process | PostgreSQL | receiver |`,
    `|---|---:|---|---:|---:|---:|`,
    ...(["worker", "baseline"] as const).map((system) => {
      const samples = figures.drains[system]
      return `| ${labels[system]} | ${median(samples.map((s) => s.rate)).toFixed(0)} | ${samples.map((s) => s.rate.toFixed(0)).join(", ")} | ` +
        `${cpu(samples, "system")} | ${cpu(samples, "postgres")} | ${cpu(samples, "receiver")} |`
    }),
    ``,
    `Enqueue → first attempt (worker idle, default settings): p50 ${figures.latency.p50.toFixed(0)} ms, p90 ` +
    `${figures.latency.p90.toFixed(0)} ms, p99 ${figures.latency.p99.toFixed(0)} ms, max ${figures.latency.max.toFixed(0)} ms.`,
    ``,
    ...backlogMarkdown(figures.backlog),
    ``,
    `1-minute load average of the machine: ${figures.load[0].toFixed(1)} before the run, ${figures.load[1].toFixed(1)} at its end ` +
    `(${cpus().length} cores; anything above the bench's own processes is other work sharing the machine and widens the noise).`
  ].join("\n")
}

/** A short summary for the terminal. */
export const webhookText = (figures: WebhookFigures) =>
  [
    `webhook drain (${figures.events} events per drain):`,
    ...(["worker", "baseline"] as const).map((system) =>
      `  ${labels[system].padEnd(58)} ${median(figures.drains[system].map((s) => s.rate)).toFixed(0).padStart(6)} deliveries/s ` +
      `(${figures.drains[system].map((s) => s.rate.toFixed(0)).join(", ")})`
    ),
    ...backlogText(figures.backlog),
    ...webhookGoals(figures).map((g) => `  ${g.met ? "  met " : "MISSED"}  ${g.name}: ${g.measured}`)
  ].join("\n")

const begin = "<!-- bench:webhooks:begin (written by `npm run bench`; edit outside these markers) -->"
const end = "<!-- bench:webhooks:end -->"

/** Replaces the webhook block of `file` (appending it when missing). */
export const writeWebhookMarkdown = (file: string, figures: WebhookFigures) => writeBlock(file, begin, end, webhookMarkdown(figures))
