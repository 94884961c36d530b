/**
 * The webhook backlog, part of the webhook bench (`webhooks.ts`): `BENCH_BACKLOG_EVENTS` (100,000)
 * `payment.created` outbox events of 50 partners with one endpoint each, interleaved, written in
 * bulk by SQL into a database of their own (`lib/BacklogTemplate.ts`). Each endpoint is a port of
 * its own on the bench's receiver (a host of its own to the systems' connection pools, as partners
 * are): 48 respond 200 at once; the slow one responds 200 after 2 to 5 s (drawn per request, within
 * the 15 s limit: every attempt succeeds, late); the dead one is a port nothing listens on (every
 * connection refused, as from a host whose service is gone: each attempt fails at once, and the
 * worker retries it on its schedule, 5 s later first).
 *
 * Three drains, each on a fresh copy of that database, the system started once the copy is ready:
 * - **worker**: `node dist/worker.mjs`, default settings (64 requests in flight, 4 per endpoint);
 * - **worker without the slow and dead endpoints**: the same, with those two endpoints disabled
 *   (their events fan out to no one): the healthy endpoints' drain when nothing slow or dead is
 *   there, the reference for "the slow endpoint delays no other";
 * - **hand loop**: `webhookBaseline.ts` with one loop per endpoint (`BY_ENDPOINT=1`), 16
 *   connections, 4 events a batch: at most 64 requests in flight and 4 per endpoint, as the worker.
 *
 * A drain lasts until every healthy endpoint has all its events and they are recorded as
 * delivered; then the system is stopped (the slow endpoint's share would take half an hour at 4
 * at a time, the dead one's retries hours). Figures are the healthy endpoints': deliveries per
 * second from the first arrival to the last, when each endpoint had its last one, and the longest
 * an endpoint waited between two of its deliveries.
 */
import { randomBytes } from "node:crypto"
import type { Merchant } from "@paygate/domain"
import type { PostgresWorld } from "../test/support/PostgresWorld.ts"
import { backlogEventId, buildBacklogTemplate } from "./lib/BacklogTemplate.ts"
import { type Drainer, exitOf, type HandLoopEndpoint, startHandLoop } from "./lib/handLoop.ts"
import { median } from "./lib/load.ts"
import { adminQuery, copyDatabase, dropDatabase, freePort, log, sleep } from "./lib/processes.ts"
import type { CountingReceiver } from "./lib/receiver.ts"

const partners = 50
const slowSlot = 0
const deadSlot = 1
const slowMs: readonly [number, number] = [2_000, 5_000]
const handLoop = { loops: 16, batch: 4, byEndpoint: true }

const systems = ["worker", "workerAlone", "baseline"] as const
/** The drains of the backlog. */
export type BacklogSystem = (typeof systems)[number]

/** One drain, over the 48 healthy endpoints. */
export interface BacklogDrain {
  readonly deliveries: number
  readonly seconds: number
  readonly rate: number
  /** Seconds after the first arrival when half the healthy endpoints, and the last of them, had all their events. */
  readonly finished: { readonly median: number; readonly last: number }
  /** The longest a healthy endpoint went without a delivery before its last, from the first arrival. */
  readonly longestWaitMs: number
  /** Deliveries the slow endpoint got meanwhile; attempts recorded on the dead one. */
  readonly slowDelivered: number
  readonly deadAttempts: number
  /** Healthy deliveries that arrived more than once. */
  readonly repeats: number
}

/** What the backlog measured. */
export interface BacklogFigures {
  readonly events: number
  readonly partners: number
  readonly slowMs: readonly [number, number]
  readonly minutes: number
  readonly drains: Readonly<Record<BacklogSystem, BacklogDrain>>
}

/** The setting of `BENCH_BACKLOG_EVENTS`. */
export const backlogEvents = (() => {
  const value = Number(process.env.BENCH_BACKLOG_EVENTS ?? "")
  return Number.isInteger(value) && value >= partners && value < 10_000_000 ? value : 100_000
})()

/** The backlog, about, in seconds on a quiet machine: building its database, then three drains of about 1,000 deliveries/s. */
export const backlogSeconds = 30 + (backlogEvents * (0.15 + 3)) / 1_000

const slotOf = (eventId: string) => Number(eventId.slice("evt_backlog".length)) % partners

interface Backlog {
  readonly world: PostgresWorld
  readonly receiver: CountingReceiver
  readonly endpoints: ReadonlyArray<HandLoopEndpoint>
  readonly healthy: ReadonlyArray<string>
  readonly slow: ReadonlyArray<string>
}

const countOf = async (url: string, text: string, values: ReadonlyArray<unknown>) =>
  Number((await adminQuery(url, text, values)).rows[0]?.n ?? 0)

const waitFor = async (what: string, done: () => boolean | Promise<boolean>, timeoutMs: number, drainer: Drainer) => {
  const giveUpAt = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > giveUpAt || drainer.child.exitCode !== null) {
      throw new Error(`backlog: ${what} did not happen in ${timeoutMs / 1000} s; the drainer's output:\n${drainer.output().slice(-3_000)}`)
    }
    await sleep(200)
  }
}

// The healthy endpoints' arrivals, by endpoint.
const measure = (arrivals: ReadonlyMap<string, number>, healthy: ReadonlyArray<string>) => {
  const bySlot = new Map<number, Array<number>>()
  for (const id of healthy) {
    const at = arrivals.get(id)!
    const list = bySlot.get(slotOf(id)) ?? []
    list.push(at)
    bySlot.set(slotOf(id), list)
  }
  const first = Math.min(...[...bySlot.values()].map((list) => Math.min(...list)))
  const finishes: Array<number> = []
  let longestWaitMs = 0
  for (const list of bySlot.values()) {
    list.sort((a, b) => a - b)
    list.forEach((at, i) => (longestWaitMs = Math.max(longestWaitMs, at - (i === 0 ? first : list[i - 1]!))))
    finishes.push((list.at(-1)! - first) / 1000)
  }
  const seconds = Math.max(...finishes)
  return { seconds, finished: { median: median(finishes), last: seconds }, longestWaitMs }
}

const drain = async (backlog: Backlog, system: BacklogSystem, url: string): Promise<BacklogDrain> => {
  const { receiver, healthy, slow, endpoints } = backlog
  const [slowEndpoint, deadEndpoint] = [endpoints[slowSlot]!, endpoints[deadSlot]!]
  if (system === "workerAlone") {
    await adminQuery(url, `UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ANY($1::text[])`, [[slowEndpoint.id, deadEndpoint.id]])
  }
  receiver.expect([...healthy, ...slow])
  const slowArrived = () => slow.reduce((n, id) => n + (receiver.arrivals.has(id) ? 1 : 0), 0)
  const drainer: Drainer = system === "baseline"
    ? startHandLoop(url, endpoints, handLoop)
    : backlog.world.spawnWorker({ DATABASE_URL: url })
  const healthyIds = endpoints.filter((_, slot) => slot !== slowSlot && slot !== deadSlot).map((e) => e.id)
  try {
    await waitFor("the healthy endpoints' deliveries", () => receiver.arrivals.size - slowArrived() === healthy.length, 900_000, drainer)
    const slowDelivered = slowArrived()
    const repeats = receiver.repeats()
    await waitFor(
      "recording the healthy endpoints' deliveries",
      async () =>
        (await countOf(url, `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded' AND endpoint_id = ANY($1::text[])`, [
          healthyIds
        ])) === healthy.length,
      60_000,
      drainer
    )
    drainer.child.kill("SIGTERM")
    await exitOf(drainer.child)
    const deadAttempts = await countOf(url, `SELECT coalesce(sum(attempts), 0)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [
      deadEndpoint.id
    ])
    const measured = measure(receiver.arrivals, healthy)
    return { deliveries: healthy.length, rate: (healthy.length - 1) / measured.seconds, slowDelivered, deadAttempts, repeats, ...measured }
  } finally {
    drainer.child.kill("SIGKILL")
    await exitOf(drainer.child)
  }
}

/** Runs the backlog with the bench's world (its key and worker) and receiver. */
export const runBacklog = async (world: PostgresWorld, receiver: CountingReceiver): Promise<BacklogFigures> => {
  const started = Date.now()
  log(`webhooks: backlog of ${backlogEvents} events over ${partners} endpoints (one slow, one dead): building its database`)
  const merchants: Array<Merchant> = []
  const endpoints: Array<HandLoopEndpoint> = []
  for (let slot = 0; slot < partners; slot++) {
    const merchant = await world.merchant()
    const path = `/backlog${slot}`
    const url = slot === deadSlot
      ? `http://127.0.0.1:${await freePort()}${path}`
      : (await receiver.listen(slot === slowSlot ? () => slowMs[0] + Math.random() * (slowMs[1] - slowMs[0]) : undefined))(path)
    const endpoint = await world.endpoint(merchant, url, path)
    merchants.push(merchant)
    endpoints.push({ id: endpoint.id, partnerId: merchant.partnerId, url, secret: endpoint.secret })
  }
  log(`webhooks: backlog endpoints registered`)
  const [prototypeEventId] = await world.seed(merchants[0]!, 1)
  const template = await buildBacklogTemplate({
    worldUrl: world.url,
    merchants: merchants.map((m) => ({ id: m.id, partnerId: m.partnerId })),
    endpointIds: endpoints.map((e) => e.id),
    prototypeEventId: prototypeEventId!
  }, backlogEvents)
  log(`webhooks: backlog database built`)
  const ids = Array.from({ length: backlogEvents }, (_, n) => backlogEventId(n))
  const backlog: Backlog = {
    world,
    receiver,
    endpoints,
    healthy: ids.filter((id) => slotOf(id) !== slowSlot && slotOf(id) !== deadSlot),
    slow: ids.filter((id) => slotOf(id) === slowSlot)
  }
  const copyName = `${new URL(template).pathname.slice(1)}_${randomBytes(2).toString("hex")}`
  try {
    const drains: Partial<Record<BacklogSystem, BacklogDrain>> = {}
    for (const system of systems) {
      const url = await copyDatabase(template, copyName)
      try {
        const sample = await drain(backlog, system, url)
        drains[system] = sample
        log(`webhooks backlog ${labels[system].padEnd(52)} ${sample.rate.toFixed(0).padStart(6)} healthy deliveries/s, ${sample.seconds.toFixed(0)} s`)
      } finally {
        await dropDatabase(url)
      }
    }
    return { events: backlogEvents, partners, slowMs, minutes: (Date.now() - started) / 60_000, drains: drains as Record<BacklogSystem, BacklogDrain> }
  } finally {
    await dropDatabase(template)
  }
}

const labels: Record<BacklogSystem, string> = {
  worker: "worker, with the slow and the dead endpoint",
  workerAlone: "worker, the slow and the dead endpoint disabled",
  baseline: "hand loop (a loop per endpoint), with them"
}

/** Slowest acceptable healthy drain with the slow and dead endpoints, against without them. */
const isolationFloor = 0.9

/** The goals for the backlog. */
export const backlogGoals = (b: BacklogFigures) => {
  const { baseline, worker, workerAlone } = b.drains
  const ratio = worker.rate / baseline.rate
  const isolation = worker.rate / workerAlone.rate
  return [
    {
      name: `backlog of ${b.events} events (a slow and a dead endpoint among ${b.partners}): worker drain ≥ 0.7× the hand loop (healthy deliveries/s)`,
      measured: `${ratio.toFixed(2)}× (${worker.rate.toFixed(0)} vs ${baseline.rate.toFixed(0)} deliveries/s)`,
      target: "≥ 0.7×",
      met: ratio >= 0.7
    },
    {
      name: `backlog: the slow endpoint delays no other (the worker's healthy drain with the slow and dead endpoints ≥ ${isolationFloor}× without them)`,
      measured: `${isolation.toFixed(2)}× (${worker.rate.toFixed(0)} vs ${workerAlone.rate.toFixed(0)} deliveries/s; ` +
        `longest wait of a healthy endpoint ${(worker.longestWaitMs / 1000).toFixed(2)} s vs ${(workerAlone.longestWaitMs / 1000).toFixed(2)} s)`,
      target: `≥ ${isolationFloor}×`,
      met: isolation >= isolationFloor
    }
  ]
}

/** The backlog's lines of the webhook section of `BENCHMARKS.md`. */
export const backlogMarkdown = (b: BacklogFigures) => [
  `Backlog (took ${b.minutes.toFixed(1)} min): ${b.events} events of ${b.partners} partners, one endpoint each on a port of its own; 48 ` +
  `answer 200 at once, one after ${b.slowMs[0] / 1000}–${b.slowMs[1] / 1000} s, one refuses connections. Each drain on a fresh copy, ` +
  `until the 48 healthy endpoints have all their events; figures are theirs, from the first arrival.`,
  ``,
  `| drain | healthy deliveries/s | drained in | endpoints done: half, last | longest wait of an endpoint | slow endpoint: delivered | dead endpoint: attempts | repeats |`,
  `|---|---:|---:|---:|---:|---:|---:|---:|`,
  ...systems.map((system) => {
    const d = b.drains[system]
    return `| ${labels[system]} | ${d.rate.toFixed(0)} | ${d.seconds.toFixed(1)} s | ${d.finished.median.toFixed(1)} s, ${d.finished.last.toFixed(1)} s | ` +
      `${(d.longestWaitMs / 1000).toFixed(2)} s | ${d.slowDelivered} | ${d.deadAttempts} | ${d.repeats} |`
  })
]

/** The backlog's lines of the terminal summary. */
export const backlogText = (b: BacklogFigures) =>
  systems.map((system) =>
    `  backlog: ${labels[system].padEnd(50)} ${b.drains[system].rate.toFixed(0).padStart(6)} healthy deliveries/s ` +
    `(longest wait ${(b.drains[system].longestWaitMs / 1000).toFixed(2)} s)`
  )
